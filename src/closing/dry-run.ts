import type { Kysely } from 'kysely'
import {
  matchConfig,
  paymentOutcome,
  type MatchConfig,
  type MatchConfigInput,
  type PaymentOutcome,
} from '../matcher/index.js'
import type { Database } from '../store/index.js'
import { loadClosedSet, matchClosedSet } from '../matching/index.js'

export type DryRunPayment = {
  transactionId: string
  amount: string
  currency: string
  /** Its open exception now. */
  now: PaymentOutcome
  /** What the engine would do now with the present configuration (customers or invoices may have changed). */
  present: PaymentOutcome
  /** With the proposed configuration (the present one when none is proposed). */
  proposed: PaymentOutcome
  /** `proposed` differs from `now`. */
  changes: boolean
}

export type DryRunReport = {
  payments: number
  /** Payments whose outcome the proposed configuration changes, by the outcome they would get. */
  changes: Record<string, number>
  results: DryRunPayment[]
}

const UNMATCHED_TYPES = ['unmatched_payment', 'suggested_match', 'ambiguous_reference'] as const

function same(a: PaymentOutcome, b: PaymentOutcome): boolean {
  return a.outcome === b.outcome && [...a.invoiceIds].sort().join() === [...b.invoiceIds].sort().join()
}

/**
 * Runs the engine over the current unmatched payments (open unmatched, suggested and ambiguous ones, oldest key
 * first, up to `limit`) with the present configuration and a proposed one, and shows what would change. Reads
 * only: nothing is written, no event is sent.
 */
export async function dryRunMatching(
  db: Kysely<Database>,
  options: { config: MatchConfig; proposed?: MatchConfigInput; limit?: number },
): Promise<DryRunReport> {
  const proposedConfig = options.proposed
    ? matchConfig({ ...options.config, ...options.proposed })
    : options.config
  const open = await db
    .selectFrom('match_exceptions')
    .select(['transaction_id', 'type', 'invoice_ids', 'confidence', 'details'])
    .where('resolved_at', 'is', null)
    .where('type', 'in', [...UNMATCHED_TYPES])
    .where('transaction_id', 'is not', null)
    .orderBy('key')
    .limit(options.limit ?? 500)
    .execute()
  const now = new Map(
    open.map((row) => [
      row.transaction_id as string,
      {
        outcome: row.type as PaymentOutcome['outcome'],
        invoiceIds: row.invoice_ids,
        confidence: row.confidence,
        reasons: row.details.reasons,
        evidence: row.details.evidence ?? [],
      },
    ]),
  )
  if (now.size === 0) return { payments: 0, changes: {}, results: [] }
  const set = await loadClosedSet(db, { transactionIds: now.keys(), invoiceIds: [] })
  const present = matchClosedSet(set, options.config)
  const proposed = options.proposed ? matchClosedSet(set, proposedConfig) : present
  const results: DryRunPayment[] = []
  const changes: Record<string, number> = {}
  for (const [transactionId, current] of now) {
    const entry = set.transactions.get(transactionId)
    if (!entry) continue
    const wouldBe = paymentOutcome(proposed, transactionId)
    const changed = !same(current, wouldBe)
    if (changed) changes[wouldBe.outcome] = (changes[wouldBe.outcome] ?? 0) + 1
    results.push({
      transactionId,
      amount: String(entry.transaction.amount),
      currency: entry.transaction.currency,
      now: current,
      present: paymentOutcome(present, transactionId),
      proposed: wouldBe,
      changes: changed,
    })
  }
  return { payments: results.length, changes, results }
}
