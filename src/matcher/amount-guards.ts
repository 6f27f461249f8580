import type { InvoiceLedger } from './invoice-ledger.js'
import { openFor } from './match-context.js'
import { centsOf, formatUnits, SCALE } from './money.js'
import type { Payment } from './payment.js'
import type { Evidence } from './types.js'

const CENT = 10n ** BigInt(SCALE - 2)
/** Shares of an invoice people pay in parts: equal instalments of 2–12, or a round percentage. */
const INSTALMENTS = [2n, 3n, 4n, 5n, 6n, 10n, 12n]
const PERCENTAGES = [10n, 20n, 25n, 30n, 40n, 50n, 60n, 70n, 75n, 80n, 90n]
const INSTALMENT_NUMBERS = INSTALMENTS.map(Number)
const PERCENTAGE_NUMBERS = PERCENTAGES.map(Number)
/** Up to this many cents, every product `plausibleInCents` forms (at most 100 × the open amount) is exact. */
const MAX_CENTS = Math.floor(Number.MAX_SAFE_INTEGER / 100)

/**
 * Rule 2: whether `amount` is a plausible part payment of `open`: an equal instalment (a half, a third, … a
 * twelfth) or a round percentage of it, to the cent. Any other amount less (or more) than what is open is not
 * evidence that the payment is for the invoice: a mistyped number, or another document's number, fits as well.
 */
export function plausiblePart(amount: bigint, open: bigint): boolean {
  if (amount <= 0n || amount >= open) return false
  // Amounts in whole cents (nearly all) are compared in cents as JS integers: each bigint step allocates.
  const amountCents = centsOf(amount)
  const openCents = amountCents < 0 ? -1 : centsOf(open)
  if (openCents >= 0 && openCents <= MAX_CENTS) return plausibleInCents(amountCents, openCents)
  for (const parts of INSTALMENTS) {
    const difference = amount * parts - open
    if ((difference < 0n ? -difference : difference) <= parts * CENT) return true
  }
  for (const percent of PERCENTAGES) {
    const difference = amount * 100n - open * percent
    if ((difference < 0n ? -difference : difference) < 100n * CENT) return true
  }
  return false
}

/** `plausiblePart` in cents: the same tests, exact while `open * 100` is a safe integer. */
function plausibleInCents(amount: number, open: number): boolean {
  for (const parts of INSTALMENT_NUMBERS) if (Math.abs(amount * parts - open) <= parts) return true
  for (const percent of PERCENTAGE_NUMBERS) if (Math.abs(amount * 100 - open * percent) < 100) return true
  return false
}

/** Units of a whole currency unit (1.00). */
const UNIT = 10n ** BigInt(SCALE)

/**
 * Rule 2: whether `amount` is a token: at most one currency unit and at most 1 % of what the named invoices have
 * open. Test transfers and account verifications are such amounts; no one settles an invoice a cent at a time.
 */
export function tokenAmount(amount: bigint, open: bigint): boolean {
  return amount > 0n && amount <= UNIT && amount * 100n <= open
}

/** Rule 2: a token amount that names an invoice: a test of the account, not a payment of the invoice. */
export function amountIsToken(amount: string): Evidence {
  return {
    code: 'conflict_token_amount',
    points: 0,
    text: `${amount} is at most one currency unit and at most 1 % of what the named invoices have open: a test transfer or an account check names an invoice as well, so a person decides`,
    conflict: 'unexplained',
  }
}

/** Rule 2: a whole number from a payer bankrec does not recognise, at an amount that does not fit. */
export function amountUnsupported(amount: string): Evidence {
  return {
    code: 'conflict_amount_unsupported',
    points: 0,
    text: `the payer is not a known customer and ${amount} is neither what the named invoices have open nor a plausible part of it: the number alone does not say the payment is for them`,
    conflict: 'unexplained',
  }
}

/**
 * Rule 4: a payment naming several invoices that is short of what they have open, with nothing stated or within
 * tolerance to explain it: the split in the order named is only a proposal (a person confirms it).
 */
export function shortOfSet(payment: Payment, live: readonly InvoiceLedger[], open: bigint): Evidence {
  let rest = payment.amount
  const split: string[] = []
  for (const ledger of live) {
    const take = rest < openFor(payment, ledger) ? rest : openFor(payment, ledger)
    rest -= take
    split.push(`${ledger.invoice.number} ${formatUnits(take)}`)
  }
  return {
    code: 'short_payment_split',
    points: 0,
    text: `${formatUnits(payment.amount)} is ${formatUnits(open - payment.amount)} short of the ${formatUnits(open)} the ${live.length} named invoices have open, with no fee or deduction stated or within tolerance; proposed split: ${split.join(', ')}`,
    conflict: 'unexplained',
  }
}
