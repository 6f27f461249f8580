import { toUnits } from './money.js'

/**
 * One invoice line of an X12 820 remittance (ACH CTX, CCD+ addenda): `RMR*IV*<number>*<action>*<paid>[*<invoiced>
 * [*<discount>]]`, and the `ADX*<amount>*<reason>` adjustments that follow it before the next RMR.
 */
export type RemittanceLine = {
  number: string
  paid: bigint
  /** The invoice's total as the payer states it (RMR05); null when not stated. */
  invoiced: bigint | null
  /** The discount taken (RMR06); 0 when not stated. */
  discount: bigint
  /** The ADX adjustments under the line: amounts (negative for a deduction) and reason codes. */
  adjustments: Array<{ amount: bigint; reason: string }>
}

const AMOUNT = '(-?\\d+(?:\\.\\d{1,2})?)'
const RMR = new RegExp(`^RMR\\*IV\\*([^*]+)\\*[A-Z]{0,2}\\*${AMOUNT}(?:\\*${AMOUNT}?)?(?:\\*${AMOUNT})?\\s*$`)
const ADX = new RegExp(`^ADX\\*${AMOUNT}\\*([A-Z0-9]{1,3})\\b`)
const SEGMENT_END = /[~\\]/

/**
 * The RMR*IV lines of an X12 remittance printed in a bank text, in order; empty when the text has none, or when an
 * RMR*IV segment or an ADX does not read cleanly (then the remittance states nothing this reader trusts).
 */
export function remittanceLines(text: string): RemittanceLine[] {
  if (!text.includes('RMR*')) return []
  const lines: RemittanceLine[] = []
  for (const raw of text.split(SEGMENT_END)) {
    const segment = raw.trim()
    if (segment.startsWith('RMR*IV*')) {
      const match = RMR.exec(segment)
      if (!match) return []
      lines.push({
        number: match[1] as string,
        paid: toUnits(match[2] as string),
        invoiced: match[3] === undefined ? null : toUnits(match[3]),
        discount: match[4] === undefined ? 0n : toUnits(match[4]),
        adjustments: [],
      })
    } else if (segment.startsWith('ADX*')) {
      const match = ADX.exec(segment)
      const line = lines[lines.length - 1]
      if (!match || !line) return []
      line.adjustments.push({ amount: toUnits(match[1] as string), reason: match[2] as string })
    } else if (segment.startsWith('RMR*')) return []
  }
  return lines
}

/** ADX02 reason codes (X12 element 426) a deduction usually carries, named for the evidence text. */
export const ADJUSTMENT_REASONS: Readonly<Record<string, string>> = {
  '01': 'pricing error',
  '03': 'extension error',
  '04': 'item not received',
  '05': 'damaged merchandise',
  '06': 'quantity contested',
  '07': 'incorrect product',
  '11': 'returns, damage',
  '12': 'returns, quality',
  '59': 'item not ordered',
  CS: 'adjustment',
}
