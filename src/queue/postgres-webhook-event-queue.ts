import { createHash } from 'node:crypto'
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type pg from 'pg'
import { assertSchemaName, type Database } from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import {
  DEDUPE_TTL_SECONDS,
  WEBHOOK_EVENTS_QUEUE,
  WEBHOOK_JOB_OPTIONS,
  type EnqueueResult,
  type WebhookEventQueue,
  type WebhookJob,
  type WebhookJobData,
} from './catalogue.js'
import { createPostgresInboxForwarder, type PostgresInboxForwarder } from './postgres-inbox-forwarder.js'
import { countInboxRows, wakeForwarders, writeInboxRows } from './postgres-inbox-rows.js'
import { createWake } from './postgres-wake.js'
import {
  wakeWorkers,
  webhookJobEntries,
  writeValues,
  writeWebhookJobRows,
} from './postgres-webhook-job-rows.js'
import { createArrivalRate } from './arrival-rate.js'

export type PostgresWebhookEventQueueOptions = {
  db: Kysely<Database>
  /**
   * The pg pool behind `db`. With it, each batch write is a named prepared statement: PostgreSQL parses and plans
   * it once per connection instead of once per batch. @defaultValue none: the same statement, unnamed, through `db`
   */
  pool?: pg.Pool
  backend: Extract<QueueBackendConfig, { kind: 'postgres' }>
  /** How long an event id counts as seen. @defaultValue DEDUPE_TTL_SECONDS (72 hours) */
  dedupeTtlSeconds?: number
  /** How often seen ids past the window are deleted, at most. @defaultValue one hour */
  pruneEveryMs?: number
  /** @defaultValue the system time */
  now?: () => Date
  /**
   * While events arrive slower than this (per second), each write adds its BullMQ jobs itself; faster, it writes
   * them to the inbox (`webhook_inbox`) for a forwarder to add. @defaultValue 500
   */
  directBelowEventsPerSecond?: number
  /**
   * Also run an inbox forwarder in this process. Leave it on unless other processes forward (bankrec's workers do;
   * `bankrec receiver` turns it off). @defaultValue true
   */
  forward?: boolean
  /** With `forward`: errors of the forwarder, which carries on. @defaultValue ignore them */
  onError?: (error: Error) => void
}

/**
 * The least time between two wake-ups of the forwarders. Under a storm a batch commits every few milliseconds and
 * each would otherwise cost a statement of its own; a forwarder once woken drains the inbox, so one wake-up per
 * spacing is enough, for at most this much more wait of an event in the inbox.
 */
const FORWARDER_WAKE_SPACING_MS = 20

/** A batch write's text, fixed per queue, and the name it is prepared under: the text's hash, so never reused. */
type BatchStatement = { name: string; text: string }

function batchStatement(query: RawBuilder<unknown>, db: Kysely<Database>): BatchStatement {
  const { sql: text } = query.compile(db)
  return { name: `bankrec_batch_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text }
}

/**
 * The webhook event queue on BullMQ's PostgreSQL backend (runs without REDIS_URL), in two ways chosen per write by
 * the arrival rate. Quiet: each batch is ONE statement (issue 17, finding 13): the event ids are marked seen and
 * the jobs of the fresh ones added together, set-based, on bankrec's connection (writeWebhookJobRows: the rows
 * BullMQ's own batched add writes), and the workers are woken after it commits. Busy (a storm, issue 29): each
 * batch is ONE statement that marks the ids seen and writes one inbox row per fresh one (writeInboxRows), about a
 * third of the database's work per event, and forwarders in the workers add the jobs (postgres-inbox-forwarder.ts).
 * Either way "duplicate" always means "queued before": never a seen mark without its job or inbox row (a crash
 * rolls both back), never a job added for an event answered duplicate. A seen mark older than the dedupe window
 * counts as absent and is pruned; a redelivery after it is queued again, and a job still kept under the same id
 * (job id = event id) is left as it is, while the worker's processed-events claim keeps its effects once.
 */
export function createPostgresWebhookEventQueue(
  options: PostgresWebhookEventQueueOptions,
): WebhookEventQueue {
  const queue = createBackendQueue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, options.backend, WEBHOOK_JOB_OPTIONS)
  const schema = assertSchemaName(options.backend.schema)
  const windowMs = (options.dedupeTtlSeconds ?? DEDUPE_TTL_SECONDS) * 1000
  const pruneEveryMs = options.pruneEveryMs ?? 60 * 60 * 1000
  const now = options.now ?? (() => new Date())
  // The backend migrates its schema when it connects; the first write waits for that.
  let ready: Promise<unknown> | undefined
  let prunedAt = Number.NEGATIVE_INFINITY

  // After the commit, never awaited by the write: a wake-up that fails costs the workers only their poll interval
  // (BullMQ's drainDelay) and the forwarders their sweep, never an event.
  const wakeTheWorkers = createWake(() => wakeWorkers().execute(options.db))
  const wakeTheForwarders = createWake(
    () => wakeForwarders(schema).execute(options.db),
    FORWARDER_WAKE_SPACING_MS,
  )
  const directBelow = options.directBelowEventsPerSecond ?? 500
  const direct = batchStatement(writeWebhookJobRows(schema), options.db)
  const inbox = batchStatement(writeInboxRows(), options.db)
  const { pool } = options
  const runWrite = async (statement: BatchStatement, values: unknown[]): Promise<{ event_id: string }[]> =>
    pool
      ? (await pool.query<{ event_id: string }>({ name: statement.name, text: statement.text, values })).rows
      : (await options.db.executeQuery<{ event_id: string }>(CompiledQuery.raw(statement.text, values))).rows
  const arrivals = createArrivalRate()
  let forwarder: PostgresInboxForwarder | undefined
  if (options.forward ?? true) {
    forwarder = createPostgresInboxForwarder({
      db: options.db,
      backend: options.backend,
      ...(options.onError ? { onError: options.onError } : {}),
    })
    forwarder.start()
  }

  const prune = async (at: Date): Promise<void> => {
    if (at.getTime() - prunedAt < pruneEveryMs) return
    prunedAt = at.getTime()
    await options.db
      .deleteFrom('received_events')
      .where('received_at', '<', new Date(at.getTime() - windowMs))
      .execute()
  }

  return {
    async addBatch(jobs) {
      if (jobs.length === 0) return []
      await (ready ??= queue.waitUntilReady().catch((error: unknown) => {
        ready = undefined
        throw error
      }))
      const at = now()
      const cutoff = new Date(at.getTime() - windowMs)
      // The first delivery of each event id in the batch; a repeat within it is a duplicate of that one.
      const firsts = new Map<string, WebhookJob>()
      for (const job of jobs) if (!firsts.has(job.eventId)) firsts.set(job.eventId, job)
      const entries = webhookJobEntries(firsts.values())
      const timestampMs = Date.now()
      const quiet = arrivals.note(jobs.length, timestampMs) < directBelow
      const rows = await runWrite(
        quiet ? direct : inbox,
        writeValues({ entries, at, cutoff, timestampMs }, !quiet),
      )
      const fresh = new Set(rows.map((row) => row.event_id))
      if (fresh.size > 0) (quiet ? wakeTheWorkers : wakeTheForwarders)()
      const results = jobs.map((job): EnqueueResult => (fresh.delete(job.eventId) ? 'queued' : 'duplicate'))
      // Outside the write: a prune that fails costs nothing but a later retry.
      await prune(at).catch(() => undefined)
      return results
    },
    backlog: async () => {
      const { rows } = await countInboxRows().execute(options.db)
      return rows[0]?.n ?? 0
    },
    async ping() {
      await sql`select 1`.execute(options.db)
    },
    async close() {
      await forwarder?.close()
      await wakeTheWorkers.settled()
      await wakeTheForwarders.settled()
      await queue.close()
    },
  }
}
