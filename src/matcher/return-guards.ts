import { daysBetween } from './date-evidence.js'
import { formatUnits } from './money.js'
import type { Evidence, MatchTransaction } from './types.js'

/** The bank's fee debited with a return (the inflow plus a fee): a charge, not the customer's money. */
export function returnFeeEvidence(fee: bigint, currency: string): Evidence {
  return {
    code: 'return_fee',
    points: 0,
    text: `${formatUnits(fee)} ${currency} more went out with it: the return fee the text states, a bank charge that reopens nothing`,
  }
}

/**
 * Dates are evidence: an outflow that would return an inflow booked more than `horizonDays` before it reverses
 * nothing by itself (returns and chargebacks come within weeks; a refund of an old payment is a person's call).
 */
export function beyondHorizon(
  inflow: MatchTransaction,
  outflow: MatchTransaction,
  horizonDays: number,
): Evidence | null {
  const days = daysBetween(inflow, outflow)
  if (days === null || days <= horizonDays) return null
  return {
    code: 'return_beyond_horizon',
    points: 0,
    text: `the payment it would return was booked ${days} days earlier, more than the ${horizonDays}-day horizon for automatic returns: nothing is reversed, a person decides`,
    conflict: 'unexplained',
  }
}
