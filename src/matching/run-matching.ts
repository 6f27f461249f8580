import { sql, type Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  appendAudit,
  deletePendingMatches,
  takePendingMatches,
  type AuditAppend,
  type Database,
} from '../store/index.js'
import {
  DEFAULT_MATCH_CONFIG,
  matchPayments,
  type MatchConfig,
  type MatchPaymentsResult,
} from '../matcher/index.js'
import { applyMatchResult, type Publish } from './apply-match-result.js'
import { loadClosedSet, type ClosedSet } from './load-closed-set.js'
import { matchTransfersStep } from './match-transfers-step.js'

export type MatchingDeps = {
  db: Kysely<Database>
  /** Scopes the run lock; the store's schema name. */
  lockNamespace: string
  clock: Clock
  logger: Logger
  /** Records an app event in the caller's transaction (context.appEvents.publish). */
  publish: Publish
  /** @defaultValue DEFAULT_MATCH_CONFIG */
  config?: MatchConfig
  /** Outbox entries drained per transaction. @defaultValue 500 */
  batchSize?: number
}

export type MatchRunSummary = {
  batches: number
  drained: number
  inserted: number
  reversed: number
  opened: number
  resolved: number
  events: number
  transfersMatched: number
}

/** The matcher over a closed set: its invoices, the transactions that take part, a person's inputs. */
export function matchClosedSet(set: ClosedSet, config: MatchConfig): MatchPaymentsResult {
  return matchPayments({
    invoices: [...set.invoices.values()],
    transactions: [...set.transactions.values()]
      .filter((entry) => entry.matchable || entry.outcome === 'return')
      .map((entry) => entry.transaction),
    manualAllocations: set.manualAllocations,
    rejectedSuggestions: set.rejectedSuggestions,
    dispositions: set.dispositions,
    config,
    index: set.index,
  })
}

/**
 * The advisory lock every matching run holds for its transaction. Advisory locks are database-wide, so the name
 * carries bankrec's schema, as the sync worker's does. The word `reconcile` is the name earlier versions used:
 * kept, so a rolling upgrade's old and new processes still exclude each other.
 */
export function matchLockName(namespace: string): string {
  return `${namespace}:reconcile`
}

/**
 * Drains the matching outbox: each batch in ONE transaction under the schema's matching lock, so two workers
 * never interleave. A batch takes the queued transactions and invoices, checks transfers' legs, loads the closed
 * set they belong to, runs the pure matcher on it, writes the difference, appends the audit entries and deletes
 * exactly the outbox entries it drained. A crash rolls the batch back whole; the entries are still queued.
 */
export async function runMatching(deps: MatchingDeps): Promise<MatchRunSummary> {
  const summary: MatchRunSummary = {
    batches: 0,
    drained: 0,
    inserted: 0,
    reversed: 0,
    opened: 0,
    resolved: 0,
    events: 0,
    transfersMatched: 0,
  }
  for (let first = true; ; first = false) {
    const drained = await deps.db.transaction().execute((trx) => runBatch(deps, trx, first, summary))
    if (drained === 0) break
  }
  if (summary.drained > 0) deps.logger.info(summary, 'matching run')
  return summary
}

async function runBatch(
  deps: MatchingDeps,
  trx: Kysely<Database>,
  first: boolean,
  summary: MatchRunSummary,
): Promise<number> {
  const config = deps.config ?? DEFAULT_MATCH_CONFIG
  await sql`select pg_advisory_xact_lock(hashtextextended(${matchLockName(deps.lockNamespace)}, 0))`.execute(
    trx,
  )
  const pending = await takePendingMatches(trx, deps.batchSize ?? 500)
  // The first batch of a run checks transfers even with nothing queued: a missing leg is a matter of time.
  if (pending.length === 0 && !first) return 0
  const now = deps.clock.now()
  const audit: AuditAppend[] = []
  const transactionIds = new Set(pending.filter((p) => p.kind === 'transaction').map((p) => p.entityId))
  const invoiceIds = new Set(pending.filter((p) => p.kind === 'invoice').map((p) => p.entityId))
  const transfers = await matchTransfersStep(trx, {
    transactionIds: [...transactionIds],
    now,
    config,
    publish: deps.publish,
    audit,
  })
  for (const id of transfers.changedLegs) transactionIds.add(id)
  if (transactionIds.size > 0 || invoiceIds.size > 0) {
    const set = await loadClosedSet(trx, { transactionIds, invoiceIds })
    const result = matchClosedSet(set, config)
    const applied = await applyMatchResult(trx, { set, result, now, publish: deps.publish, audit })
    summary.inserted += applied.inserted
    summary.reversed += applied.reversed
    summary.opened += applied.opened
    summary.resolved += applied.resolved
    summary.events += applied.events
  }
  summary.transfersMatched += transfers.matched
  summary.events += transfers.events
  await appendAudit(trx, now, audit)
  await deletePendingMatches(
    trx,
    pending.map((p) => p.seq),
  )
  summary.batches++
  summary.drained += pending.length
  return pending.length
}
