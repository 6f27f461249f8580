/** Characters banks mask account digits with. */
const MASK = /[*xX•#]/

/** An account as compared: upper case, letters and digits only (`DE89 3704 0044 …` → `DE893704…`). */
export function compactAccount(account: string): string {
  return account.toUpperCase().replace(/[^0-9A-Z*•#]/g, '')
}

/**
 * A masked counterparty account (`DE89 **** **** 3000`, `****6789`, `XXXX-XXXX-6789`) as the visible start and end
 * around the mask. Null when fewer than four characters show at the end: four digits are the least that tells
 * accounts apart, and even they may collide, which the caller handles by refusing ambiguity.
 */
export type MaskedAccount = { compact: string; head: string; tail: string; masked: boolean }

export function parseMaskedAccount(shown: string | null | undefined): MaskedAccount | null {
  if (!shown) return null
  const compact = compactAccount(shown).replace(/[xX]/g, (char, index, whole: string) =>
    // X is a mask only in a run of masks or before the visible end, never inside an IBAN's letters.
    /[0-9]/.test(whole[index - 1] ?? '') && /[0-9]/.test(whole[index + 1] ?? '') ? char : '*',
  )
  const first = compact.search(MASK)
  if (first < 0) return compact.length >= 4 ? { compact, head: compact, tail: compact, masked: false } : null
  let last = compact.length - 1
  while (last >= 0 && !MASK.test(compact[last] as string)) last--
  const head = compact.slice(0, first)
  const tail = compact.slice(last + 1)
  return tail.length >= 4 ? { compact, head, tail, masked: true } : null
}

/** Whether a known account (compact) can be the one the bank showed masked: the visible parts agree. */
export function accountMatches(known: string, shown: MaskedAccount): boolean {
  if (!shown.masked) return known === shown.compact
  return (
    known.length >= shown.head.length + shown.tail.length &&
    known.startsWith(shown.head) &&
    known.endsWith(shown.tail)
  )
}

/** The last four characters: how known accounts are looked up for a masked one. */
export function accountTail(compact: string): string {
  return compact.slice(-4)
}

/**
 * Whether a shown account tells its owner apart well enough to verify a payer: unmasked, or more than four
 * characters visible besides an IBAN's country code (`DE89 **** 3000` shows six). A masked tail of four
 * characters or fewer (`XXXXXX6789`) is one account in ten thousand at best: a hint, never verification.
 */
export function verifiesOwner(shown: MaskedAccount): boolean {
  if (!shown.masked) return true
  return shown.tail.length + shown.head.replace(/^[A-Z]{2}/, '').length > 4
}
