import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../../clock/index.js'
import {
  advanceCursor,
  applySyncPage,
  deleteTransactionsNotInBackfill,
  enqueueBackfillRemovals,
  enqueueMatches,
  getSyncStream,
  isStillBootstrapping,
  recordSyncSuccess,
  saveStreamHead,
  transactionToRow,
  upsertTransactions,
  type Database,
} from '../../store/index.js'
import { planSyncPage } from './plan-sync-page.js'
import type { SyncSource } from './sync-source.js'

export type ConnectionSyncDeps = {
  db: Kysely<Database>
  source: SyncSource
  clock: Clock
  /** Events per sync call (1–500). @defaultValue 500 */
  pageSize?: number
  /** Called with a classification of a cursor the bank refused, before the stream starts over. */
  isCursorExpired(error: unknown): boolean
  isCursorInvalid(error: unknown): boolean
  onCursorRejected?(kind: 'expired' | 'invalid', connectionId: string): Promise<void> | void
}

export type ConnectionSyncResult = {
  bootstrapped: boolean
  pagesApplied: number
  upserted: number
  deleted: number
  /** Earliest posted date the run touched; balances are re-read from there. */
  earliestPostedDate: string | null
}

/** Another worker advanced the same stream first; this run's page was rolled back and the run stops. */
export class ConcurrentSyncError extends Error {
  readonly code = 'concurrent_sync'
  constructor(connectionId: string) {
    super(
      `Another worker advanced the sync stream of connection ${connectionId}; this run stopped without applying its page.`,
    )
    this.name = 'ConcurrentSyncError'
  }
}

/**
 * Brings one connection's mirror up to the bank's stream: the seed's no-gap bootstrap for a new (or restarted)
 * stream, then every page while hasMore, each page's upserts, deletes and new cursor in one transaction.
 */
export async function runConnectionSync(
  deps: ConnectionSyncDeps,
  connectionId: string,
): Promise<ConnectionSyncResult> {
  const result: ConnectionSyncResult = {
    bootstrapped: false,
    pagesApplied: 0,
    upserted: 0,
    deleted: 0,
    earliestPostedDate: null,
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const stream = await getSyncStream(deps.db, connectionId)
    if (!stream || stream.bootstrap_state !== 'streaming' || stream.cursor === null) {
      await bootstrap(deps, connectionId, result)
    }
    try {
      await streamPages(deps, connectionId, result)
      await recordSyncSuccess(deps.db, connectionId, deps.clock.now())
      return result
    } catch (error) {
      const kind = deps.isCursorExpired(error)
        ? 'expired'
        : deps.isCursorInvalid(error)
          ? 'invalid'
          : undefined
      if (!kind || attempt > 0) throw error
      await deps.onCursorRejected?.(kind, connectionId)
      await deps.db.deleteFrom('sync_streams').where('connection_id', '=', connectionId).execute()
    }
  }
  throw new Error('unreachable: the second attempt either returns or throws')
}

/** Seed rule 5: save the head, backfill from the list endpoint, then stream from the head. */
async function bootstrap(
  deps: ConnectionSyncDeps,
  connectionId: string,
  result: ConnectionSyncResult,
): Promise<void> {
  const head = await deps.source.syncPage({ connectionId, limit: 1 })
  await saveStreamHead(deps.db, connectionId, head.nextCursor, deps.clock.now())
  const run = randomUUID()
  for await (const page of deps.source.transactionPages(connectionId)) {
    // Matching's outbox is written with the rows it concerns, so no committed change goes unmatched.
    await deps.db.transaction().execute(async (trx) => {
      if (!(await isStillBootstrapping(trx, connectionId, head.nextCursor)))
        throw new ConcurrentSyncError(connectionId)
      await upsertTransactions(
        trx,
        page.map((tx) => transactionToRow(tx, null, run)),
      )
      await enqueueMatches(
        trx,
        'transaction',
        page.map((tx) => tx.id),
      )
    })
    result.upserted += page.length
    for (const tx of page) noteDate(result, tx.postedDate)
  }
  await deps.db.transaction().execute(async (trx) => {
    await enqueueBackfillRemovals(trx, connectionId, run)
    result.deleted += await deleteTransactionsNotInBackfill(trx, connectionId, run)
    if (!(await advanceCursor(trx, connectionId, null, head.nextCursor, deps.clock.now()))) {
      throw new ConcurrentSyncError(connectionId)
    }
  })
  result.bootstrapped = true
}

async function streamPages(
  deps: ConnectionSyncDeps,
  connectionId: string,
  result: ConnectionSyncResult,
): Promise<void> {
  const stream = await getSyncStream(deps.db, connectionId)
  let cursor = stream?.cursor ?? null
  if (cursor === null) throw new Error(`sync stream of ${connectionId} has no cursor after bootstrap`)
  const fetchPage = (from: string) => {
    const page = deps.source.syncPage({ connectionId, cursor: from, limit: deps.pageSize ?? 500 })
    // Awaited in the next turn of the loop; until then a failure must not count as unhandled.
    page.catch(() => undefined)
    return page
  }
  // Seed rule 6: a retried call reuses the same cursor; it is persisted only with its applied page.
  let next = fetchPage(cursor)
  for (;;) {
    const page = await next
    // Read ahead while this page is written: reading persists nothing, and the page after it is applied only
    // once this one and its cursor are committed (or dropped with the run if this one fails).
    if (page.hasMore) next = fetchPage(page.nextCursor)
    const plan = planSyncPage(page.events)
    const from = cursor
    const applied = await applySyncPage(deps.db, {
      connectionId,
      from,
      next: page.nextCursor,
      upserts: plan.upserts,
      deletes: plan.deletes,
      now: deps.clock.now(),
    })
    if (applied === null) throw new ConcurrentSyncError(connectionId)
    // A removed or re-dated transaction changes the balance of the day it had: re-read balances from there too.
    noteDate(result, applied.earliestPreviousPostedDate)
    result.deleted += applied.deleted
    result.pagesApplied++
    result.upserted += plan.upserts.length
    noteDate(result, plan.earliestPostedDate)
    cursor = page.nextCursor
    if (!page.hasMore) return
  }
}

function noteDate(result: ConnectionSyncResult, date: string | null | undefined): void {
  if (date && (result.earliestPostedDate === null || date < result.earliestPostedDate))
    result.earliestPostedDate = date
}
