/**
 * Legal-form words, each mapped to one spelling, so `Acme Ltd` and `ACME LIMITED` carry the same form. Dots are
 * removed before the comparison, so `L.L.C.` is `llc` and `S.A.` is `sa`. The list is open: a form missing here is
 * read as part of the name, which only makes a name comparison stricter.
 */
export const LEGAL_FORMS: ReadonlyMap<string, string> = new Map([
  ...['ab', 'ag', 'aps', 'as', 'asa', 'bv', 'bvba', 'eg', 'ek', 'ev', 'gbr', 'gmbh', 'kg', 'kgaa', 'kk'].map(
    (form) => [form, form] as const,
  ),
  ...[
    'llc',
    'llp',
    'lp',
    'ltd',
    'mbh',
    'nv',
    'ohg',
    'oy',
    'oyj',
    'plc',
    'pty',
    'sa',
    'sarl',
    'sas',
    'sasu',
  ].map((form) => [form, form] as const),
  ...['se', 'sl', 'slu', 'snc', 'spa', 'srl', 'ug', 'vof', 'co', 'corp', 'inc', 'eurl', 'sprl', 'scs'].map(
    (form) => [form, form] as const,
  ),
  ['limited', 'ltd'],
  ['incorporated', 'inc'],
  ['corporation', 'corp'],
  ['company', 'co'],
  ['cie', 'co'],
  ['cia', 'co'],
  ['gesellschaft', 'gmbh'],
  ['haftungsbeschrankt', 'ug'],
])

/** Words that join names (`Smith & Sons`, `Müller und Söhne`, `Dupont et Fils`): dropped, whatever the language. */
const CONNECTORS: ReadonlySet<string> = new Set(['and', 'und', 'et', 'y', 'en', 'og', 'och', 'e', 'i'])

/** Letters that do not decompose into a base letter and an accent. */
const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  Æ: 'ae',
  ø: 'o',
  Ø: 'o',
  œ: 'oe',
  Œ: 'oe',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  þ: 'th',
  Þ: 'th',
}

const BEYOND_ASCII = /[^\x20-\x7e]/
const SPECIAL = /[ßæÆøØœŒłŁđĐþÞ]/g
// German umlauts are written ü, ue or u: fold all three (and the same for ö, ä, å) to one spelling.
const UMLAUT_SPELLING = /([aou])e/g

/** A name in the form names are compared in; `base` without, `full` with the legal form. */
export type NameKey = {
  /** The words of the name without legal forms: what two spellings of one name share. */
  base: string
  /** The legal forms found at the start or end, in one spelling, joined by spaces; null when none. */
  legalForm: string | null
  /** `base` and `legalForm` together: tells legal-form twins (Müller GmbH, Müller KG) apart. */
  full: string
  /** Every word as written (folded), in order: for names the bank cut short. */
  plain: string
}

/** The words of a name, folded (case, accents, umlaut spellings), connectors dropped, legal forms as written. */
function words(name: string): string[] {
  let text = name
  if (BEYOND_ASCII.test(text)) {
    text = text
      .replace(SPECIAL, (letter) => SPECIAL_LETTERS[letter] ?? letter)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
  }
  return (
    text
      .toLowerCase()
      .replace(/['’.]/g, '')
      // A/S, K/S: one legal form written with a slash.
      .replace(/\b([a-z])\/([a-z])\b/g, '$1$2')
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 0 && !CONNECTORS.has(word))
      .map((word) => word.replace(UMLAUT_SPELLING, '$1'))
  )
}

function isLegalForm(word: string | undefined): boolean {
  return word !== undefined && LEGAL_FORMS.has(word)
}

/**
 * How customer names, aliases and counterparty names are compared: case, accents, punctuation and connector
 * words ignored; ü, ue and u (and ö, ä, ß) read alike; legal forms at the start or the end set apart. Null when
 * the name says nothing.
 */
export function nameKey(name: string | null | undefined): NameKey | null {
  if (!name) return null
  const written = words(name)
  if (written.length === 0) return null
  const all = written.map((word) => LEGAL_FORMS.get(word) ?? word)
  let start = 0
  let end = all.length
  const forms: string[] = []
  while (end - start > 1 && isLegalForm(all[end - 1])) forms.unshift(all[--end] as string)
  while (end - start > 1 && isLegalForm(all[start])) forms.unshift(all[start++] as string)
  const base = all.slice(start, end).join(' ')
  const legalForm = forms.length > 0 ? [...new Set(forms)].sort().join(' ') : null
  return { base, legalForm, full: legalForm ? `${base} ${legalForm}` : base, plain: written.join(' ') }
}

/** The name without its legal form, as the customer filter and lookups compare it; empty when it says nothing. */
export function normalizeName(name: string | null | undefined): string {
  return nameKey(name)?.base ?? ''
}

/** Lengths at which banks cut a payer's name (SEPA 70, older formats 35). */
export const NAME_CUT_LENGTHS: ReadonlySet<number> = new Set([35, 70])

/** Whether the bank may have cut this name: it is exactly as long as a field that cuts names. */
export function mayBeCut(name: string): boolean {
  return NAME_CUT_LENGTHS.has(name.trimStart().length) || NAME_CUT_LENGTHS.has(name.length)
}

/** How a bank without those letters writes them: one letter becomes two, so the name is cut at another place. */
const TWO_LETTER_SPELLINGS: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ß: 'ss',
  æ: 'ae',
  Æ: 'Ae',
  œ: 'oe',
  Œ: 'Oe',
  þ: 'th',
  Þ: 'Th',
}
const TWO_LETTER = /[äöüÄÖÜßæÆœŒþÞ]/g

/**
 * The keys a customer name is looked up by: its own, and those of the name cut at 35 and 70 characters as a bank
 * writes it (as written, and with ü, ß, … spelled with two letters), so that a payer whose name the bank cut
 * finds the customer in the store. A cut key only widens which customers are loaded; the matcher still decides.
 */
export function nameLookupKeys(names: ReadonlyArray<string | null | undefined>): string[] {
  const keys = new Set<string>()
  for (const name of names) {
    if (!name) continue
    keys.add(normalizeName(name))
    const spelled = name.replace(TWO_LETTER, (letter) => TWO_LETTER_SPELLINGS[letter] ?? letter)
    for (const written of spelled === name ? [name] : [name, spelled]) {
      for (const length of NAME_CUT_LENGTHS) {
        if (written.length > length) keys.add(normalizeName(written.slice(0, length)))
      }
    }
  }
  keys.delete('')
  return [...keys]
}
