/** [start, end) of text that reads as a calendar date. */
export type Span = { start: number; end: number }

const YMD = /(?<![0-9])((?:19|20)\d\d)[-/. ](\d{1,2})[-/. ](\d{1,2})(?![0-9])/g
const DMY = /(?<![0-9])(\d{1,2})[-/. ](\d{1,2})[-/. ]((?:19|20)?\d\d)(?![0-9])/g
const COMPACT = /(?<![0-9])(\d{8})(?![0-9])/g

function isDay(month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31
}

/**
 * Where a text holds dates as payers write them: 2024-03-15, 15.03.2024, 03/15/24, 20240315 or 15032024. A
 * number inside one is read as a date before an invoice number (a payment date must never pay a year-sequence
 * invoice whose digits it happens to form).
 */
export function dateSpans(text: string): Span[] {
  const spans: Span[] = []
  if (!mayHoldDate(text)) return spans
  for (const found of text.matchAll(YMD)) {
    if (isDay(Number(found[2]), Number(found[3])))
      spans.push({ start: found.index, end: found.index + found[0].length })
  }
  for (const found of text.matchAll(DMY)) {
    const [a, b] = [Number(found[1]), Number(found[2])]
    if (isDay(b, a) || isDay(a, b)) spans.push({ start: found.index, end: found.index + found[0].length })
  }
  for (const found of text.matchAll(COMPACT)) {
    const digits = found[1] as string
    const ymd = /^(19|20)\d\d/.test(digits) && isDay(Number(digits.slice(4, 6)), Number(digits.slice(6, 8)))
    const dmy = /(19|20)\d\d$/.test(digits) && isDay(Number(digits.slice(2, 4)), Number(digits.slice(0, 2)))
    if (ymd || dmy) spans.push({ start: found.index, end: found.index + 8 })
  }
  return spans
}

/**
 * Whether some date pattern can match: each needs a digit, a separator and a digit, or a run of exactly 8 digits.
 * Most texts have neither, and are not run through the three expressions.
 */
function mayHoldDate(text: string): boolean {
  let run = 0
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code >= 48 && code <= 57) {
      run++
      continue
    }
    if (run === 8) return true
    if (run > 0 && (code === 45 || code === 47 || code === 46 || code === 32)) {
      const next = text.charCodeAt(at + 1)
      if (next >= 48 && next <= 57) return true
    }
    run = 0
  }
  return run === 8
}

export function overlaps(spans: readonly Span[], start: number, end: number): boolean {
  return spans.some((span) => span.start < end && start < span.end)
}
