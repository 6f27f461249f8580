import { sql, type Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { MATCHING_LOCK_WORD } from '../queue/index.js'
import {
  appendAudit,
  loadExceptionsInScope,
  recordShadowDecisions,
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
import { applyMatchResult } from './apply-match-result.js'
import { AUTO_APPLY_MODES, AUTO_APPLY_SETTING, type AutoApplyMode } from './auto-apply-mode.js'
import { holdBackAutomaticActions } from './hold-back.js'
import { loadClosedSet, type ClosedSet } from './load-closed-set.js'
import { matchTransfersStep } from './match-transfers-step.js'

export type MatchingDeps = {
  db: Kysely<Database>
  /** Scopes the run lock; the store's schema name. */
  lockNamespace: string
  clock: Clock
  logger: Logger
  /** @defaultValue DEFAULT_MATCH_CONFIG */
  config?: MatchConfig
  /** Outbox entries drained per transaction. @defaultValue 500 */
  batchSize?: number
  /**
   * The automatic-matching mode while none is stored (MATCH_AUTO_APPLY); a stored one (set through the API or the
   * CLI) is read by each batch with its lock. @defaultValue 'on'
   */
  autoApply?: AutoApplyMode
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
  /** Automatic actions held back for a person (shadow or off mode). */
  heldBack: number
}

const NONE_EXCLUDED: ReadonlySet<string> = new Set()

/**
 * The matcher over a closed set: its invoices, the transactions that take part, a person's inputs. `excluded`:
 * transactions left out (shadow mode holds their automatic action back).
 */
export function matchClosedSet(
  set: ClosedSet,
  config: MatchConfig,
  excluded: ReadonlySet<string> = NONE_EXCLUDED,
): MatchPaymentsResult {
  return matchPayments({
    invoices: [...set.invoices.values()],
    transactions: [...set.transactions.values()]
      .filter(
        (entry) => (entry.matchable || entry.outcome === 'return') && !excluded.has(entry.transaction.id),
      )
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
 * carries bankrec's schema, as the sync worker's does; its word is a stored name (src/queue/catalogue.ts).
 */
export function matchLockName(namespace: string): string {
  return `${namespace}:${MATCHING_LOCK_WORD}`
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
  return drainOutbox(deps, null)
}

/**
 * `runMatching`, waiting at most `waitMs` for the matching lock: null when another run held it that long (the
 * caller queues the run instead). A batch holds the lock for tens of milliseconds, so a run in place normally waits
 * its turn rather than paying a queue hop; a long run (a large import) leaves it to the queue.
 */
export async function runMatchingWithin(deps: MatchingDeps, waitMs: number): Promise<MatchRunSummary | null> {
  try {
    return await drainOutbox(deps, waitMs)
  } catch (error) {
    if (error instanceof MatchingLockBusy) return null
    throw error
  }
}

/** The matching lock stayed held for the whole wait the run allowed. */
class MatchingLockBusy extends Error {}

/** PostgreSQL's lock_not_available: a lock wait ran into lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03'

async function drainOutbox(deps: MatchingDeps, lockWaitMs: number | null): Promise<MatchRunSummary> {
  const summary: MatchRunSummary = {
    batches: 0,
    drained: 0,
    inserted: 0,
    reversed: 0,
    opened: 0,
    resolved: 0,
    events: 0,
    transfersMatched: 0,
    heldBack: 0,
  }
  const batchSize = deps.batchSize ?? 500
  for (let first = true; ; first = false) {
    const batch = { first, size: batchSize, lockWaitMs: first ? lockWaitMs : null }
    const drained = await deps.db.transaction().execute((trx) => runBatch(deps, trx, batch, summary))
    if (drained < batchSize) break
  }
  if (summary.drained > 0) deps.logger.info(summary, 'matching run')
  return summary
}

const isMode = (value: string | null | undefined): value is AutoApplyMode =>
  (AUTO_APPLY_MODES as readonly string[]).includes(value ?? '')

/**
 * Takes the matching lock for the batch's transaction, waiting at most `waitMs` (null: as long as it takes), and
 * reads the stored automatic-matching mode in the same statement (null: none stored). A mode an admin sets applies
 * from the next batch in every process, without a restart and without a statement more per batch.
 */
async function lockMatching(
  trx: Kysely<Database>,
  lockName: string,
  waitMs: number | null,
): Promise<string | null> {
  const stored = sql<string | null>`(select value from runtime_settings where key = ${AUTO_APPLY_SETTING})`
  if (waitMs === null) {
    const { rows } = await sql<{ mode: string | null }>`
      select pg_advisory_xact_lock(hashtextextended(${lockName}, 0)), ${stored} as mode
    `.execute(trx)
    return rows[0]?.mode ?? null
  }
  // One round trip: the bound is set for this lock's wait and the session's own setting restored after it.
  try {
    const { rows } = await sql<{ mode: string | null }>`
      with session as (select current_setting('lock_timeout') as lock_timeout)
      select set_config('lock_timeout', ${`${waitMs}ms`}, true),
        pg_advisory_xact_lock(hashtextextended(${lockName}, 0)),
        set_config('lock_timeout', session.lock_timeout, true),
        ${stored} as mode
      from session
    `.execute(trx)
    return rows[0]?.mode ?? null
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) throw new MatchingLockBusy()
    throw error
  }
}

/**
 * The matcher's result to write: as it is with automation on; with it off or in shadow, without the automatic
 * actions that would be new (each held back for a person), which shadow mode records for the trust report.
 */
async function decide(
  trx: Kysely<Database>,
  set: ClosedSet,
  config: MatchConfig,
  mode: AutoApplyMode,
  now: Date,
  summary: MatchRunSummary,
): Promise<MatchPaymentsResult> {
  if (mode === 'on') return matchClosedSet(set, config)
  const first = matchClosedSet(set, config)
  const returnsInForce = first.returns.length === 0 ? [] : await openReturnKeys(trx, set)
  const held = holdBackAutomaticActions(
    set,
    (excluded) => (excluded.size === 0 ? first : matchClosedSet(set, config, excluded)),
    new Set(returnsInForce),
  )
  summary.heldBack += held.decisions.length
  if (mode === 'shadow') await recordShadowDecisions(trx, held.decisions, now)
  return held.result
}

async function openReturnKeys(trx: Kysely<Database>, set: ClosedSet): Promise<string[]> {
  const open = await loadExceptionsInScope(trx, { transactionIds: [...set.transactionIds], keys: [] })
  return open.filter((row) => row.type === 'payment_returned').map((row) => row.key)
}

async function runBatch(
  deps: MatchingDeps,
  trx: Kysely<Database>,
  batch: { first: boolean; size: number; lockWaitMs: number | null },
  summary: MatchRunSummary,
): Promise<number> {
  const config = deps.config ?? DEFAULT_MATCH_CONFIG
  const stored = await lockMatching(trx, matchLockName(deps.lockNamespace), batch.lockWaitMs)
  const mode = isMode(stored) ? stored : (deps.autoApply ?? 'on')
  const { pending, rows } = await takePendingMatches(trx, batch.size)
  // The first batch of a run checks transfers even with nothing queued: a missing leg is a matter of time.
  if (pending.length === 0 && !batch.first) return 0
  const now = deps.clock.now()
  const audit: AuditAppend[] = []
  const transactionIds = new Set(pending.filter((p) => p.kind === 'transaction').map((p) => p.entityId))
  const invoiceIds = new Set(pending.filter((p) => p.kind === 'invoice').map((p) => p.entityId))
  const seeds = { ids: [...transactionIds], rows }
  const transfers = await matchTransfersStep(trx, {
    transactionIds: seeds.ids,
    transactionRows: seeds.rows,
    now,
    config,
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
    const result = await decide(trx, set, config, mode, now, summary)
    const applied = await applyMatchResult(trx, { set, result, now, audit })
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
