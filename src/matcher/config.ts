import type { Decimal } from 'decimal.js'
import { DEFAULT_AUTO_APPLY_THRESHOLD } from './evidence.js'
import { SCALE, toDecimal, toUnits, type Money } from './money.js'

/** Matching thresholds. Build one with `matchConfig()`, which fills the defaults. */
export type MatchConfig = {
  /**
   * Rule 6: an underpayment that leaves at most this much open pays the invoice, the rest written off.
   * With both set, the smaller of the two limits applies.
   * @defaultValue null (off)
   */
  feeToleranceAbsolute: Decimal | null
  /** Percent of the invoice amount (e.g. 0.5 for 0.5 %). @defaultValue null (off) */
  feeTolerancePercent: Decimal | null
  /**
   * Per currency, the tolerances that replace the two above (a limit left out keeps the general one; null turns
   * it off for that currency). @defaultValue {}
   */
  feeToleranceByCurrency: Readonly<Record<string, CurrencyTolerance>>
  /** The ledger account write-offs are booked to. @defaultValue "write-off" */
  writeOffAccount: string
  /** Per write-off reason (`bank_fee`, `discount`, …), an account that replaces `writeOffAccount`. @defaultValue {} */
  writeOffAccounts: Readonly<Record<string, string>>
  /**
   * Evidence: a reference (or a verified payer's exact amount) scoring at least this much, with no unexplained
   * conflict, is applied without a person; below it the match is suggested with its reasons. @defaultValue 85
   */
  autoApplyThreshold: number
  /**
   * Rule 5: a suggestion scoring at least this much is allocated without a person.
   * @defaultValue null (never: a match without a reference always waits for a person)
   */
  autoConfirmThreshold: number | null
  /** Rule 5: the largest invoice set a suggestion may propose. @defaultValue 5 */
  maxSuggestionSetSize: number
  /** Rule 5 bound: only the customer's oldest this-many open invoices take part in the subset search. @defaultValue 20 */
  suggestionCandidateLimit: number
  /** Rule 8: how long after completion a transfer's legs may take to appear. @defaultValue 3 days */
  transferLegWindowSeconds: number
  /**
   * Dates are evidence: an invoice issued more than this many days after the payment was booked is never paid by
   * it without a person (invoices are dated a few days late, not weeks). @defaultValue 5
   */
  invoiceDateGraceDays: number
  /**
   * Dates are evidence: an outflow is never taken as the return of an inflow booked more than this many days
   * before it without a person (card chargebacks come within 120 days). @defaultValue 120
   */
  returnHorizonDays: number
}

/** One currency's tolerances; a limit left out keeps the general one. */
export type CurrencyTolerance = { absolute?: Decimal | null; percent?: Decimal | null }

export type MatchConfigInput = Partial<
  Omit<MatchConfig, 'feeToleranceAbsolute' | 'feeTolerancePercent' | 'feeToleranceByCurrency'> & {
    feeToleranceAbsolute: Money | null
    feeTolerancePercent: Money | null
    feeToleranceByCurrency: Readonly<Record<string, { absolute?: Money | null; percent?: Money | null }>>
  }
>

export const DEFAULT_MATCH_CONFIG: MatchConfig = {
  autoApplyThreshold: DEFAULT_AUTO_APPLY_THRESHOLD,
  feeToleranceAbsolute: null,
  feeTolerancePercent: null,
  feeToleranceByCurrency: {},
  writeOffAccount: 'write-off',
  writeOffAccounts: {},
  autoConfirmThreshold: null,
  maxSuggestionSetSize: 5,
  suggestionCandidateLimit: 20,
  transferLegWindowSeconds: 3 * 24 * 60 * 60,
  invoiceDateGraceDays: 5,
  returnHorizonDays: 120,
}

export function matchConfig(input: MatchConfigInput = {}): MatchConfig {
  const absolute = input.feeToleranceAbsolute ?? null
  const percent = input.feeTolerancePercent ?? null
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined))
  return {
    ...DEFAULT_MATCH_CONFIG,
    ...given,
    feeToleranceAbsolute: absolute === null ? null : toDecimal(absolute),
    feeTolerancePercent: percent === null ? null : toDecimal(percent),
    feeToleranceByCurrency: Object.fromEntries(
      Object.entries(input.feeToleranceByCurrency ?? {}).map(([currency, limits]) => [
        currency,
        Object.fromEntries(
          Object.entries(limits)
            .filter(([, value]) => value !== undefined)
            .map(([limit, value]) => [limit, value === null ? null : toDecimal(value)]),
        ) as CurrencyTolerance,
      ]),
    ),
  }
}

/** The fee tolerance in money units: `percent` is scaled like an amount (1 % is 10^18). */
export type FeeTolerance = { absolute: bigint | null; percent: bigint | null }

/** The tolerance for money in `currency` (its own limits where the configuration sets them, else the general ones). */
export function feeTolerance(config: MatchConfig, currency?: string): FeeTolerance {
  const own = currency === undefined ? undefined : config.feeToleranceByCurrency[currency]
  const absolute = own?.absolute !== undefined ? own.absolute : config.feeToleranceAbsolute
  const percent = own?.percent !== undefined ? own.percent : config.feeTolerancePercent
  return {
    absolute: absolute ? toUnits(absolute) : null,
    percent: percent ? toUnits(percent) : null,
  }
}

/** The ledger account a write-off with this reason is booked to. */
export function writeOffAccountFor(config: MatchConfig, reason: string): string {
  return config.writeOffAccounts[reason] ?? config.writeOffAccount
}

const PERCENT_DENOMINATOR = 100n * 10n ** BigInt(SCALE)

/** Rule 6: whether leaving `rest` open on an invoice of `amount` is within the tolerance (both limits, if set). */
export function withinFeeTolerance(tolerance: FeeTolerance, rest: bigint, amount: bigint): boolean {
  if (tolerance.absolute === null && tolerance.percent === null) return false
  if (tolerance.absolute !== null && rest > tolerance.absolute) return false
  // rest ≤ amount × percent / 100, compared without dividing so nothing is rounded.
  return tolerance.percent === null || rest * PERCENT_DENOMINATOR <= amount * tolerance.percent
}
