import transliterate from '@sindresorhus/transliterate'

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
  ['aktiengesellschaft', 'ag'],
  ['kommanditgesellschaft', 'kg'],
  ['haftungsbeschrankt', 'ug'],
  ['haftungsbeschraenkt', 'ug'],
])

/** Words that join names (`Smith & Sons`, `Müller und Söhne`, `Dupont et Fils`): dropped, whatever the language. */
const CONNECTORS: ReadonlySet<string> = new Set(['and', 'und', 'et', 'y', 'en', 'og', 'och', 'e', 'i'])

/**
 * Legal forms written in several words (`Gesellschaft mbH`, `Gesellschaft mit beschränkter Haftung`), as the
 * words of a folded name: one form. `Gesellschaft` alone is a word of the name (a company, any form).
 */
const FORM_PHRASES: ReadonlyArray<readonly [readonly string[], string]> = [
  [['gesellschaft', 'mbh'], 'gmbh'],
  [['gesellschaft', 'mit', 'beschraenkter', 'haftung'], 'gmbh'],
  [['gesellschaft', 'mit', 'beschrankter', 'haftung'], 'gmbh'],
  [['offene', 'handelsgesellschaft'], 'ohg'],
]

/** The first words of FORM_PHRASES: most words start none, and are not compared with every phrase. */
const PHRASE_STARTS: ReadonlySet<string> = new Set(FORM_PHRASES.map(([parts]) => parts[0] as string))

/**
 * Greek per ELOT 743 where the library spells otherwise (digraphs `ου`, `αυ`, `ευ`, `μπ`, `ντ`, `γκ`; χ ch, ψ ps,
 * θ th, ξ x, β v, η i, υ y, ω o) and Russian щ as shch (ICAO 9303, the spelling of names in Latin letters). Names
 * are lower-cased first, so only lower-case letters are listed.
 */
const SCRIPT_SPELLINGS: Array<[string, string]> = [
  ['ού', 'ou'],
  ['ου', 'ou'],
  ['αύ', 'av'],
  ['αυ', 'av'],
  ['εύ', 'ev'],
  ['ευ', 'ev'],
  ['ηύ', 'iv'],
  ['ηυ', 'iv'],
  ['γγ', 'ng'],
  ['γκ', 'gk'],
  ['μπ', 'mp'],
  ['ντ', 'nt'],
  ['χ', 'ch'],
  ['ψ', 'ps'],
  ['θ', 'th'],
  ['ξ', 'x'],
  ['β', 'v'],
  ['η', 'i'],
  ['ή', 'i'],
  ['υ', 'y'],
  ['ύ', 'y'],
  ['ω', 'o'],
  ['ώ', 'o'],
  ['щ', 'shch'],
]

const BEYOND_ASCII = /[^\x20-\x7e]/
/** German letters that banks without them spell with two letters, or strip to one. */
const UMLAUTS = /[äöüÄÖÜ]/
const SPECIAL = /[ßæÆøØœŒłŁđĐþÞ]/g
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
  /** The name with its umlauts stripped (`Muller` for `Müller`), as banks without them also write it; null if none. */
  stripped: NameKey | null
}

/**
 * A name's letters in Latin: German transliteration (ä ae, ö oe, ü ue, ß ss), Cyrillic and Greek transliterated
 * (`@sindresorhus/transliterate`, Greek per ELOT 743), other accents dropped. `strip`: umlauts lose their dots.
 */
function latin(name: string, strip: boolean): string {
  const lower = name.toLowerCase()
  if (!BEYOND_ASCII.test(lower)) return lower
  if (strip) {
    return lower
      .replace(SPECIAL, (letter) => SPECIAL_LETTERS[letter] ?? letter)
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
  }
  return transliterate(lower, { customReplacements: SCRIPT_SPELLINGS }).toLowerCase()
}

/** The words of a name, folded (case, script, accents), connectors dropped, multi-word legal forms as one. */
function words(name: string, strip: boolean): { written: string[]; folded: string[] } {
  const written = latin(name, strip)
    .replace(/['’.]/g, '')
    // A/S, K/S: one legal form written with a slash.
    .replace(/\b([a-z])\/([a-z])\b/g, '$1$2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !CONNECTORS.has(word))
  const folded: string[] = []
  for (let at = 0; at < written.length; at++) {
    const phrase = PHRASE_STARTS.has(written[at] as string)
      ? FORM_PHRASES.find(([parts]) => parts.every((part, offset) => written[at + offset] === part))
      : undefined
    if (phrase) {
      folded.push(phrase[1])
      at += phrase[0].length - 1
    } else {
      folded.push(written[at] as string)
    }
  }
  return { written, folded }
}

function isLegalForm(word: string | undefined): boolean {
  return word !== undefined && LEGAL_FORMS.has(word)
}

function keyOf({
  written,
  folded,
}: {
  written: readonly string[]
  folded: readonly string[]
}): Omit<NameKey, 'stripped'> | null {
  if (written.length === 0) return null
  const all = folded.map((word) => LEGAL_FORMS.get(word) ?? word)
  let start = 0
  let end = all.length
  const forms: string[] = []
  while (end - start > 1 && isLegalForm(all[end - 1])) forms.unshift(all[--end] as string)
  while (end - start > 1 && isLegalForm(all[start])) forms.unshift(all[start++] as string)
  const base = all.slice(start, end).join(' ')
  const legalForm = forms.length > 0 ? [...new Set(forms)].sort().join(' ') : null
  return { base, legalForm, full: legalForm ? `${base} ${legalForm}` : base, plain: written.join(' ') }
}

/**
 * How customer names, aliases and counterparty names are compared: case, accents, punctuation and connector
 * words ignored; German letters transliterated (ü is ue, not u: `Joe` stays `Joe`), Cyrillic and Greek in Latin
 * letters; legal forms at the start or the end set apart. `stripped` is the name with its umlauts' dots dropped,
 * for the customer side (a bank may write Müller as Muller). Null when the name says nothing.
 */
export function nameKey(name: string | null | undefined): NameKey | null {
  if (!name) return null
  let key = nameKeys.get(name)
  if (key === undefined) {
    if (nameKeys.size >= NAME_KEY_CACHE_LIMIT) nameKeys.clear()
    key = parseName(name)
    nameKeys.set(name, key)
  }
  return key
}

/**
 * Payers and customers repeat payment after payment, and folding a name (transliteration above all) costs more
 * than the rest of reading it: each name is folded once. Keys are shared, so they are frozen.
 */
const NAME_KEY_CACHE_LIMIT = 50_000
const nameKeys = new Map<string, NameKey | null>()

function parseName(name: string): NameKey | null {
  const key = keyOf(words(name, false))
  if (!key) return null
  const stripped = UMLAUTS.test(name) ? keyOf(words(name, true)) : null
  return Object.freeze({
    ...key,
    stripped: stripped && stripped.full !== key.full ? Object.freeze({ ...stripped, stripped: null }) : null,
  })
}

// Store lookup keys read ü, ue and u (and ö, ä, å) alike, as before: a key only widens which customers are loaded.
const UMLAUT_SPELLING = /([aou])e/g

/** The name without its legal form, as the customer filter and lookups compare it; empty when it says nothing. */
export function normalizeName(name: string | null | undefined): string {
  const base = nameKey(name)?.base ?? ''
  return base.replace(UMLAUT_SPELLING, '$1')
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

/**
 * Whether a shown name shares no word of three letters or more with any of a customer's names (any spelling):
 * it names someone else. A name of only short words tells nothing and contradicts nothing.
 */
export function sharesNoWord(shown: NameKey | null, names: ReadonlyArray<NameKey | null>): boolean {
  const words = (shown?.base ?? '').split(' ').filter((word) => word.length >= 3)
  if (words.length === 0) return false
  const known = new Set<string>()
  for (const name of names) {
    for (const form of [name, name?.stripped])
      for (const word of form?.plain.split(' ') ?? []) known.add(word)
  }
  return !words.some((word) => known.has(word))
}
