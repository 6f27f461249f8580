/**
 * Remittance text is printed in fixed-width lines: MT940 `:86:` purpose subfields `?20`–`?29` (and `?60`–`?63`)
 * of 27 characters, SEPA's 140 characters as 4 × 35. A bank fills a line to its width and carries on in the next
 * one, in the middle of a word or a number: `…INV-2024-01` `?21` `02 Danke`. Read whole, a line filled to its width
 * runs on into the next without a break; a shorter line ended where the payer ended it.
 */
const WRAP_WIDTHS: ReadonlySet<number> = new Set([27, 35])
/** MT940 `:86:` subfields: `?` and two digits. */
const SUBFIELD = /\?(\d\d)/g
const PURPOSE_SUBFIELD = /\?2\d/

function isWordChar(char: string | undefined): boolean {
  if (char === undefined) return false
  const code = char.charCodeAt(0)
  const letter = code | 32
  return (code >= 48 && code <= 57) || (letter >= 97 && letter <= 122)
}

/** Joins lines, each filled line (of a wrap width) running on into the next when both sides are letters or digits. */
function joinLines(lines: readonly string[]): string {
  let text = lines[0] ?? ''
  for (let at = 1; at < lines.length; at++) {
    const previous = lines[at - 1] as string
    const line = lines[at] as string
    const runsOn =
      WRAP_WIDTHS.has(previous.length) && isWordChar(previous[previous.length - 1]) && isWordChar(line[0])
    text += runsOn ? line : ` ${line}`
  }
  return text
}

/** Whether a `:86:` subfield holds purpose text (`?20`–`?29`, `?60`–`?63`). */
function isPurpose(code: number): boolean {
  return (code >= 20 && code <= 29) || (code >= 60 && code <= 63)
}

/**
 * MT940 `:86:` with subfields: the purpose lines read whole, the other subfields kept apart (`purposeOnly`: left
 * out).
 */
function unwrapSubfields(text: string, purposeOnly = false): string {
  const parts: string[] = []
  let purpose: string[] = []
  let last = 0
  let code = -1
  const flush = (content: string) => {
    if (isPurpose(code)) {
      purpose.push(content)
      return
    }
    if (purpose.length > 0) parts.push(joinLines(purpose))
    purpose = []
    if (content && !purposeOnly) parts.push(content)
  }
  for (const match of text.matchAll(SUBFIELD)) {
    flush(text.slice(last, match.index))
    code = Number(match[1])
    last = (match.index as number) + match[0].length
  }
  flush(text.slice(last))
  if (purpose.length > 0) parts.push(joinLines(purpose))
  return parts.join(' ')
}

/** The text with its wrapped lines read whole (the same text when it has no line breaks or subfields). */
export function unwrapRemittance(text: string): string {
  const subfields = text.includes('?2') && PURPOSE_SUBFIELD.test(text)
  if (!subfields && !text.includes('\n')) return text
  if (subfields) return unwrapSubfields(text.replace(/\r?\n/g, ''))
  return joinLines(text.split(/\r?\n/))
}

/**
 * What the payer wrote: of an MT940 `:86:` only the purpose subfields, read whole (not the bank's posting text,
 * prima nota, BIC, IBAN and name subfields); any other text with its wrapped lines read whole.
 */
export function remittancePurpose(text: string): string {
  return text.includes('?2') && PURPOSE_SUBFIELD.test(text)
    ? unwrapSubfields(text.replace(/\r?\n/g, ''), true)
    : unwrapRemittance(text)
}
