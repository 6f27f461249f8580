import type { Payment } from './payment.js'
import { feeTolerance, withinFeeTolerance, type MatchConfig } from './config.js'
import { POINTS } from './evidence.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { formatUnits, SCALE, toUnits } from './money.js'
import type { Evidence, MatchTransaction, WriteOffReason } from './types.js'

/**
 * Residuals (docs/closing.md): why settled money may leave a rest open on the last invoice it pays and still call
 * it paid, the rest written off with a reason. In order: a fee the bank line states, to the cent; an early-payment
 * discount taken in time, to the cent; a shortfall within the fee tolerance of the currency. A stated fee that does
 * not add up explains nothing (and the tolerance does not apply either): a person decides.
 */
export type Shortfall = { reason: WriteOffReason; evidence: Evidence }

// "fees 4.35", "Gebühren: EUR 12,50", "frais -3,00", "comisión 1.234,56": a fee word, then its amount.
const STATED_FEE =
  /(?:^|[^\p{L}])(?:fees?|gebühr(?:en)?|gebuehr(?:en)?|frais|comisi[oó]n(?:es)?|commission[ei]?|kosten|entgelte?|charges?)\s*[:=]?\s*-?\s*(?:[A-Z]{3}\s*)?(\d{1,3}(?:[.,' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)(?!\d)/iu
const PAYOUT = /payout|auszahlung|versement|liquidaci[oó]n|settlement|pagamento/iu
const TEXT_FIELDS = ['description', 'rawDescription', 'paymentReference', 'customerReference'] as const

export type StatedFee = { units: bigint; reason: WriteOffReason }

const statedFees = new WeakMap<MatchTransaction, StatedFee | null>()

function amountUnits(written: string): bigint {
  const decimal = /[.,](\d{1,2})$/.exec(written)
  const whole = (decimal ? written.slice(0, decimal.index) : written).replace(/[.,' ]/g, '')
  return toUnits(decimal ? `${whole}.${decimal[1]}` : whole)
}

/** The fee a bank line's text states (`psp_fee` on a payout, else `bank_fee`); null when it states none. */
export function statedFee(transaction: MatchTransaction): StatedFee | null {
  let fee = statedFees.get(transaction)
  if (fee !== undefined) return fee
  fee = null
  for (const field of TEXT_FIELDS) {
    const text = transaction[field]
    const match = text ? STATED_FEE.exec(text) : null
    if (!match) continue
    const units = amountUnits(match[1] as string)
    if (units > 0n) {
      const payout = TEXT_FIELDS.some((name) => PAYOUT.test(transaction[name] ?? ''))
      fee = { units, reason: payout ? 'psp_fee' : 'bank_fee' }
    }
    break
  }
  statedFees.set(transaction, fee)
  return fee
}

const PERCENT_DENOMINATOR = 100n * 10n ** BigInt(SCALE)
const CENT = 10n ** BigInt(SCALE - 2)

/** Whether `left` is the invoice's early-payment discount (to the cent) and the payment booked by its date. */
function isDiscountInTime(payment: Payment, ledger: InvoiceLedger, left: bigint): boolean {
  const terms = ledger.invoice.earlyPaymentDiscount
  const booked = payment.transaction.postedDate?.slice(0, 10)
  if (!terms || !booked || booked > terms.until.slice(0, 10)) return false
  // |left − amount × percent / 100| < 0.01, compared without dividing so nothing is rounded.
  const difference = left * PERCENT_DENOMINATOR - ledger.amount * toUnits(terms.percent)
  const magnitude = difference < 0n ? -difference : difference
  return magnitude < CENT * PERCENT_DENOMINATOR
}

/**
 * Why `left` may stay open on `ledger`, the last invoice settled money `payment` pays, with the invoice paid;
 * null when nothing explains it.
 */
export function explainShortfall(
  config: MatchConfig,
  payment: Payment,
  ledger: InvoiceLedger,
  left: bigint,
): Shortfall | null {
  if (payment.phase !== 'settled' || left <= 0n) return null
  const rest = formatUnits(left)
  const fee = statedFee(payment.transaction)
  if (fee) {
    return fee.units === left
      ? {
          reason: fee.reason,
          evidence: {
            code: 'fee_stated',
            points: POINTS.amountExact,
            text: `the text states a fee of ${rest}: the named invoices less the fee are exactly the amount`,
          },
        }
      : null
  }
  if (isDiscountInTime(payment, ledger, left)) {
    const terms = ledger.invoice.earlyPaymentDiscount!
    return {
      reason: 'discount',
      evidence: {
        code: 'discount_in_time',
        points: POINTS.amountExact,
        text: `paid net of the ${terms.percent} % early-payment discount (${rest}) by ${terms.until}`,
      },
    }
  }
  if (withinFeeTolerance(feeTolerance(config, payment.transaction.currency), left, ledger.amount)) {
    return {
      reason: 'bank_fee',
      evidence: {
        code: 'amount_tolerance',
        points: POINTS.amountTolerance,
        text: `${formatUnits(payment.amount)} is within the fee tolerance of the ${formatUnits(payment.amount + left)} open`,
      },
    }
  }
  return null
}

/** A fee the text states that is not what the payment leaves open: the split is a person's to confirm. */
export function statedFeeMismatch(payment: Payment, left: bigint): Evidence | null {
  const fee = statedFee(payment.transaction)
  if (!fee || fee.units === left || left <= 0n) return null
  return {
    code: 'fee_stated_mismatch',
    points: 0,
    text: `the text states a fee of ${formatUnits(fee.units)}, but ${formatUnits(left)} is left open`,
    conflict: 'unexplained',
  }
}
