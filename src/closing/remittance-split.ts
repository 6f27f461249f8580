import { Decimal } from 'decimal.js'

/** One line of a remittance advice, its invoice found: what the advice says it pays and what the invoice has open. */
export type AdviceLine = {
  line: number
  invoiceId: string
  invoiceNumber: string
  amount: Decimal
  open: Decimal
}

export type RemittanceSplit =
  | {
      ok: true
      /** One match per line; the line carrying the write-off pays its invoice in full less it. */
      matches: Array<{ invoiceId: string; amount: Decimal; writeOff: Decimal | null }>
      /** The advice's fee plus the difference within tolerance. */
      writeOff: Decimal
      difference: Decimal
    }
  | { ok: false; difference: Decimal; why: string }

/**
 * Splits a bank line by its remittance advice (issue 16, lump sums): the lines' total less the stated fee must be
 * the bank amount exactly, or short of it by a difference `withinTolerance` allows. The write-off (fee and
 * difference) goes on the largest line that pays its invoice's whole open amount, so it closes that invoice.
 */
export function splitRemittance(
  lines: readonly AdviceLine[],
  fee: Decimal,
  bankAmount: Decimal,
  withinTolerance: (difference: Decimal, owed: Decimal) => boolean,
): RemittanceSplit {
  const total = lines.reduce((sum, line) => sum.plus(line.amount), new Decimal(0))
  const difference = total.minus(fee).minus(bankAmount)
  if (difference.lt(0)) {
    return { ok: false, difference, why: 'the bank line is more than the advice’s lines less its fee' }
  }
  if (difference.gt(0) && !withinTolerance(difference, total)) {
    return { ok: false, difference, why: 'the difference is beyond the fee tolerance' }
  }
  const writeOff = fee.plus(difference)
  const matches = lines.map((line) => ({ invoiceId: line.invoiceId, amount: line.amount, writeOff: null }))
  if (writeOff.isZero()) return { ok: true, matches, writeOff, difference }
  const carrier = [...lines]
    .filter((line) => line.amount.eq(line.open) && line.amount.gt(writeOff))
    .sort((a, b) => b.amount.comparedTo(a.amount) || a.line - b.line)[0]
  if (!carrier) {
    return {
      ok: false,
      difference,
      why: `no line pays its invoice in full and more than the ${writeOff.toFixed(2)} to write off`,
    }
  }
  return {
    ok: true,
    writeOff,
    difference,
    matches: matches.map((match) =>
      match.invoiceId === carrier.invoiceId
        ? { ...match, amount: match.amount.minus(writeOff), writeOff }
        : match,
    ),
  }
}
