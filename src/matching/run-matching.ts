import { sql, type Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  appendAudit,
  loadMatchTransactions,
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
 * never interleave. A batch takes the queued transactions and invoices out of the outbox, checks transfers' legs,
 * loads the closed set they belong to, runs the pure matcher on it, writes the difference and appends the audit
 * entries. A crash rolls the batch back whole; the entries are still queued. The run ends with a batch that took
 * less than a full batch: what is queued after it was taken comes with its own request for a run (each change
 * that queues matching asks for one), so no further transaction is spent to find the outbox empty.
 */
export async function runMatching(deps: MatchingDeps): Promise<MatchRunSummary> {
  return (await drainOutbox(deps, 'wait')) as MatchRunSummary
}

/**
 * `runMatching` unless another run holds the matching lock: then nothing is done and null is returned (the
 * caller queues the run instead of waiting for the lock).
 */
export async function runMatchingIfFree(deps: MatchingDeps): Promise<MatchRunSummary | null> {
  return drainOutbox(deps, 'try')
}

async function drainOutbox(deps: MatchingDeps, lock: 'wait' | 'try'): Promise<MatchRunSummary | null> {
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
  const batchSize = deps.batchSize ?? 500
  for (let first = true; ; first = false) {
    const drained = await deps.db
      .transaction()
      .execute((trx) => runBatch(deps, trx, { first, size: batchSize, lock: first ? lock : 'wait' }, summary))
    if (drained === null) return null
    if (drained < batchSize) break
  }
  if (summary.drained > 0) deps.logger.info(summary, 'matching run')
  return summary
}

async function runBatch(
  deps: MatchingDeps,
  trx: Kysely<Database>,
  batch: { first: boolean; size: number; lock: 'wait' | 'try' },
  summary: MatchRunSummary,
): Promise<number | null> {
  const config = deps.config ?? DEFAULT_MATCH_CONFIG
  const lockName = matchLockName(deps.lockNamespace)
  if (batch.lock === 'try') {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(hashtextextended(${lockName}, 0)) as locked
    `.execute(trx)
    if (rows[0]?.locked !== true) return null
  } else await sql`select pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`.execute(trx)
  const pending = await takePendingMatches(trx, batch.size)
  // The first batch of a run checks transfers even with nothing queued: a missing leg is a matter of time.
  if (pending.length === 0 && !batch.first) return 0
  const now = deps.clock.now()
  const audit: AuditAppend[] = []
  const transactionIds = new Set(pending.filter((p) => p.kind === 'transaction').map((p) => p.entityId))
  const invoiceIds = new Set(pending.filter((p) => p.kind === 'invoice').map((p) => p.entityId))
  const seeds = { ids: [...transactionIds], rows: await loadMatchTransactions(trx, [...transactionIds]) }
  const transfers = await matchTransfersStep(trx, {
    transactionIds: seeds.ids,
    transactionRows: seeds.rows,
    now,
    config,
    publish: deps.publish,
    audit,
  })
  for (const id of transfers.changedLegs) transactionIds.add(id)
  if (transactionIds.size > 0 || invoiceIds.size > 0) {
    // A seed whose leg the transfer step changed is read again: its row says what it was.
    const read = {
      ids: seeds.ids.filter((id) => !transfers.changedLegs.includes(id)),
      rows: seeds.rows.filter((row) => !transfers.changedLegs.includes(row.id)),
    }
    const set = await loadClosedSet(trx, { transactionIds, invoiceIds, transactionRows: read })
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
  summary.batches++
  summary.drained += pending.length
  return pending.length
}
