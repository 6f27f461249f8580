/**
 * Legal-form words dropped from the end of a name, so `Acme Ltd`, `ACME LIMITED` and `Acme` are one customer.
 * Dots are removed before the comparison, so `L.L.C.` is `llc` and `S.A.` is `sa`.
 */
export const LEGAL_SUFFIXES: ReadonlySet<string> = new Set([
  'ab',
  'ag',
  'as',
  'bv',
  'co',
  'company',
  'corp',
  'corporation',
  'gmbh',
  'inc',
  'incorporated',
  'kg',
  'kk',
  'limited',
  'llc',
  'llp',
  'lp',
  'ltd',
  'nv',
  'oy',
  'plc',
  'pty',
  'sa',
  'sarl',
  'sas',
  'se',
  'spa',
  'srl',
])

const BEYOND_PRINTABLE_ASCII = /[^\x20-\x7e]/

/**
 * The form customer names, aliases and counterparty names are compared in: case, accents and punctuation
 * ignored, `&` read as `and`, legal-form suffixes optional. An empty result means the name says nothing.
 */
export function normalizeName(name: string | null | undefined): string {
  if (!name) return ''
  const plain = !BEYOND_PRINTABLE_ASCII.test(name) ? name : name.normalize('NFKD').replace(/\p{M}+/gu, '')
  const words = plain
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’.]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
  while (words.length > 1 && LEGAL_SUFFIXES.has(words[words.length - 1] as string)) words.pop()
  return words.join(' ')
}
