import type { MatchConfig } from './config.js'
import { findExactSets } from './find-exact-sets.js'
import { SCALE, formatUnits } from './money.js'
import { sortByAge } from './sort-by-age.js'
import type { MatchInvoice } from './types.js'

/** An open invoice of the payer, with what it still has open (settled and pending money both counted). */
export type SuggestionCandidate = { invoice: MatchInvoice; available: bigint }

export type Suggestion = { invoiceIds: string[]; confidence: number; reasons: string[] }

const SINGLE_CONFIDENCE = 80
const PER_EXTRA_INVOICE = 10
const NOT_UNIQUE_PENALTY = 30
const WHOLE_UNIT = 10n ** BigInt(SCALE)

/** The identity of a suggested invoice set, as rejections are recorded. */
export function suggestionKey(transactionId: string, invoiceIds: readonly string[]): string {
  return `${transactionId}:${[...invoiceIds].sort().join(',')}`
}

/**
 * Whether some set of these (positive) open amounts may sum to `amount`: one of them is it, or the two smallest do
 * not pass it. When not, neither the sort by age nor the search is needed: a subset of them fits no better.
 */
function mayFit(open: readonly SuggestionCandidate[], amount: bigint): boolean {
  let least: bigint | null = null
  let next: bigint | null = null
  for (const { available } of open) {
    if (available === amount) return true
    if (least === null || available < least) {
      next = least
      least = available
    } else if (next === null || available < next) {
      next = available
    }
  }
  return least !== null && next !== null && least + next <= amount
}

function candidateInvoice(candidate: SuggestionCandidate): MatchInvoice {
  return candidate.invoice
}

/**
 * The amounts as exact JS integers in the largest power-of-ten unit that divides them all (cents, usually), or
 * null when a sum of `maxSuggestionSetSize` of them could exceed 2^53: then no suggestion is made.
 */
function toSafeIntegers(units: readonly bigint[], config: MatchConfig): number[] | null {
  // The largest power of ten dividing every amount: each value only lowers it further (one remainder per value,
  // mostly, where testing all values at each power takes one per value and power).
  let divisor = WHOLE_UNIT
  for (const value of units) while (divisor > 1n && value % divisor !== 0n) divisor /= 10n
  const limit = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / Math.max(1, config.maxSuggestionSetSize)))
  const safe: number[] = []
  for (const value of units) {
    const scaled = value / divisor
    if (scaled > limit) return null
    safe.push(Number(scaled))
  }
  return safe
}

/**
 * Rule 5 for a payment no reference explains: the smallest set of at most `maxSuggestionSetSize` of the payer's
 * open invoices whose open amounts sum exactly to the payment, the oldest such set when several do. Only the
 * `suggestionCandidateLimit` oldest candidates are searched, which bounds the work per payment.
 */
export function suggestMatch(input: {
  transactionId: string
  amount: bigint
  candidates: readonly SuggestionCandidate[]
  config: MatchConfig
  rejected?: ReadonlySet<string>
}): Suggestion | null {
  const { transactionId, amount, config, rejected } = input
  const open = input.candidates.filter((candidate) => candidate.available > 0n)
  if (open.length === 0 || amount <= 0n || !mayFit(open, amount)) return null
  const candidates = sortByAge(open, candidateInvoice)
  candidates.length = Math.min(candidates.length, config.suggestionCandidateLimit)
  const units = [amount]
  for (const candidate of candidates) units.push(candidate.available)
  const small = toSafeIntegers(units, config)
  if (!small) return null
  const [target, ...values] = small as [number, ...number[]]
  const found = findExactSets(
    values,
    target,
    config.maxSuggestionSetSize,
    (set) =>
      !rejected?.size ||
      !rejected.has(
        suggestionKey(
          transactionId,
          set.map((index) => (candidates[index] as SuggestionCandidate).invoice.id),
        ),
      ),
  )
  if (!found) return null
  const chosen = found.first.map((index) => (candidates[index] as SuggestionCandidate).invoice)
  const numbers = chosen.map((invoice) => invoice.number).join(', ')
  const reasons = [
    'no reference field names a known invoice',
    'the counterparty is the invoices’ customer',
    chosen.length === 1
      ? `${formatUnits(amount)} equals the open amount of invoice ${numbers}`
      : `${formatUnits(amount)} equals the sum of the open amounts of invoices ${numbers}`,
  ]
  let confidence = SINGLE_CONFIDENCE - PER_EXTRA_INVOICE * (chosen.length - 1)
  if (!found.unique) {
    confidence -= NOT_UNIQUE_PENALTY
    reasons.push(`other sets of ${found.size} invoices also sum to it; the oldest was chosen`)
  }
  return {
    invoiceIds: chosen.map((invoice) => invoice.id),
    confidence: Math.max(0, Math.min(100, confidence)),
    reasons,
  }
}
