import { Decimal } from 'decimal.js'
import { normalizeCurrency } from './currency.js'

/**
 * APPROVAL_THRESHOLD_AMOUNT: what one person may take out of receivables alone, for every currency (`all`) and per
 * currency (`byCurrency`); a currency with neither never waits.
 */
export type ApprovalThreshold = { all: string | null; byCurrency: Readonly<Record<string, string>> }

/** The approval policy's settings (docs/security.md, Segregation of duties). */
export type ApprovalPolicy = {
  /** null: nothing waits. */
  threshold: ApprovalThreshold | null
  /** APPROVAL_WINDOW_HOURS: how far back a maker's own operations count. */
  windowHours: number
  /** APPROVAL_BUILTIN_ADMIN_MAY_APPROVE: whether KIT_API_TOKEN's built-in admin may approve (default no). */
  builtinAdminMayApprove: boolean
}

export const NO_APPROVALS: ApprovalPolicy = {
  threshold: null,
  windowHours: 24,
  builtinAdminMayApprove: false,
}

/**
 * What is already counted against the threshold in the operation's currency: made alone and in force, or waiting
 * for approval, per invoice it touches, per payment, and by its maker within the window.
 */
export type Counted = { invoice: string; payment: string; maker: string }

export type ApprovalDecision = {
  needsSecondPerson: boolean
  /** The threshold applied (null: none for this currency), the normalised currency and why, for the audit. */
  limit: string | null
  currency: string | null
  why: string
}

/** The threshold for a currency already normalised; undefined when none applies. */
function limitFor(threshold: ApprovalThreshold, currency: string): string | undefined {
  return threshold.byCurrency[currency] ?? threshold.all ?? undefined
}

/**
 * The one decision (issue 26): whether an operation that lowers what a customer owes without a bank payment, or
 * creates a liability, needs a second person. It does when its amount with what is already counted per invoice,
 * per payment or per maker goes over the threshold of its currency, so splitting never gets under it. A currency
 * that is no ISO 4217 code cannot be looked up: with any threshold set, it needs a second person.
 */
export function decideApproval(
  policy: ApprovalPolicy,
  operation: { amount: Decimal.Value; currency: string | null | undefined; counted: Counted },
): ApprovalDecision {
  const threshold = policy.threshold
  const currency = normalizeCurrency(operation.currency)
  if (threshold === null) return { needsSecondPerson: false, limit: null, currency, why: 'no threshold set' }
  if (currency === null) {
    const any = threshold.all !== null || Object.keys(threshold.byCurrency).length > 0
    return {
      needsSecondPerson: any,
      limit: null,
      currency,
      why: `currency ${JSON.stringify(operation.currency)} is no ISO 4217 code`,
    }
  }
  const limit = limitFor(threshold, currency)
  if (limit === undefined)
    return { needsSecondPerson: false, limit: null, currency, why: `no threshold for ${currency}` }
  const amount = new Decimal(operation.amount)
  const scopes = [
    ['invoice', operation.counted.invoice],
    ['payment', operation.counted.payment],
    ['maker', operation.counted.maker],
  ] as const
  for (const [scope, counted] of scopes) {
    const total = amount.plus(counted)
    if (total.gt(limit)) {
      return {
        needsSecondPerson: true,
        limit,
        currency,
        why: `${amount.toFixed()} with ${new Decimal(counted).toFixed()} already counted per ${scope} is ${total.toFixed()} ${currency}, over ${limit}`,
      }
    }
  }
  return { needsSecondPerson: false, limit, currency, why: `within ${limit} ${currency}` }
}
