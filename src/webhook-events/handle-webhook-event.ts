import type { Worker } from 'bullmq'
import type { Kysely } from 'kysely'
import type { Connection } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  WEBHOOK_EVENTS_QUEUE,
  createBackendWorker,
  type QueueBackendConfig,
  type WebhookJob,
  type WebhookJobData,
} from '../queue/index.js'
import {
  claimEvent,
  getMirroredConnection,
  readEventAndConnection,
  recordStatus,
  recordUninterpretableEvent,
  type Database,
  type EventOutcome,
  type MirroredConnection,
} from '../store/index.js'
import { interpretEvent, type InterpretedEvent } from '../webhook-envelope/index.js'
import type { EventRetention } from './event-retention.js'

export type ConnectionLookup = {
  db: Kysely<Database>
  /** The connection as the bank shows it now, or null when the bank does not know it (404, not an id). */
  lookupConnection(connectionId: string): Promise<Connection | null>
  /** A connection read from the bank: its mirrored row and its health, together. */
  recordConnection(connection: Connection): Promise<void>
}

/** What bankrec knows of a connection: the mirror's status, or the bank's read just now (then mirrored). */
export type KnownConnection = { status: string; read: Connection | null }

/**
 * The mirror's row, else the bank asked once (and its answer mirrored): nothing is synced or acted on for an id
 * that is no connection (finding 12), while a connection created since the mirror last looked is still found.
 */
export async function knownConnection(
  deps: ConnectionLookup,
  connectionId: string,
): Promise<KnownConnection | null> {
  return knownFromMirror(deps, connectionId, await getMirroredConnection(deps.db, connectionId))
}

/** knownConnection with the mirror's row already read. */
async function knownFromMirror(
  deps: Omit<ConnectionLookup, 'db'>,
  connectionId: string,
  row: MirroredConnection | undefined,
): Promise<KnownConnection | null> {
  if (row && row.kind !== 'deleted') return { status: row.status, read: null }
  const read = await deps.lookupConnection(connectionId)
  if (!read) return null
  await deps.recordConnection(read)
  return { status: read.status, read }
}

// ── one event ───────────────────────────────────────────────────────────────────────────────────────────────────

type Uninterpretable = Extract<InterpretedEvent, { kind: 'uninterpretable' }>
type StatusChanged = Extract<InterpretedEvent, { kind: 'status_changed' }>

export type WebhookEventEffects = Omit<ConnectionLookup, 'db'> & {
  /** A sync of the connection: in place when its lock is free, else queued (src/sync/sync-in-place.ts). */
  requestSync(connectionId: string, reason: string): Promise<void>
  /** The safety net: a sync of every ready connection the bank lists. */
  requestSyncOfAll(reason: string): Promise<void>
  /** A status change reached bankrec: the mirrored row and connection health, together; alerts. */
  onStatusChanged(change: {
    connectionId: string
    previousStatus: string | null
    /** The previous status as the bank stated it in the event; never bankrec's own belief. */
    enteredFrom: string | null
    status: string
    errorCode: string | null
    errorMessage: string | null
    eventId: string
    occurredAt: string
  }): Promise<void>
  /** Tells operations an event could not be interpreted (once per kind of problem). */
  onUninterpretable(event: {
    eventId: string
    type: string | null
    problem: string
    detail: string
    action: string
  }): Promise<void>
}

export type HandledOutcome = 'processed' | 'ignored' | 'duplicate' | 'uninterpretable'

const knownFor = (db: Kysely<Database>, effects: WebhookEventEffects, connectionId: string) =>
  knownConnection(
    { db, lookupConnection: effects.lookupConnection, recordConnection: effects.recordConnection },
    connectionId,
  )

async function claimOnly(
  db: Kysely<Database>,
  eventId: string,
  type: string,
  outcome: EventOutcome,
  now: Date,
): Promise<HandledOutcome> {
  return (await claimEvent(db, eventId, type, outcome, now)) ? outcome : 'duplicate'
}

/**
 * What one queued webhook delivery does, whatever dialect it speaks (interpretEvent). The event id is claimed in
 * the same transaction as the store writes, so a redelivered or retried event writes them once; effects outside
 * the database (asking for a sync, health, alerts) are idempotent by themselves and run first, so a crash between
 * them and the claim repeats them on the retried job instead of losing them.
 */
export async function handleWebhookEvent(
  db: Kysely<Database>,
  job: WebhookJob,
  effects: WebhookEventEffects,
  now: Date,
): Promise<HandledOutcome> {
  const event = interpretEvent(job.event)
  const connectionId =
    event.kind === 'sync_available' || event.kind === 'status_changed' ? event.connectionId : null
  // interpretEvent reads only the body, so it can come first and the duplicate check share its round trip with
  // the connection's mirrored row (issue 29); a duplicate leaves the row unused.
  const { processed, connection } = await readEventAndConnection(db, job.eventId, connectionId)
  if (processed) return 'duplicate'
  switch (event.kind) {
    case 'test':
      return claimOnly(db, job.eventId, event.type, 'processed', now)
    case 'ignored':
      return claimOnly(db, job.eventId, event.type, 'ignored', now)
    case 'uninterpretable':
      return uninterpretable(db, job, event, effects, now)
    case 'sync_available': {
      if (!(await knownFromMirror(effects, event.connectionId, connection))) {
        return uninterpretable(db, job, unknownConnection(event), effects, now)
      }
      await effects.requestSync(event.connectionId, 'webhook')
      return claimOnly(db, job.eventId, event.type, 'processed', now)
    }
    case 'status_changed':
      return statusChanged(db, job, event, connection, effects, now)
  }
}

function unknownConnection(event: { type: string; connectionId: string }): Uninterpretable {
  return {
    kind: 'uninterpretable',
    type: event.type,
    problem: 'unknown_connection',
    connectionIds: [],
    detail: `It names connection ${event.connectionId}, which the bank does not know.`,
  }
}

async function statusChanged(
  db: Kysely<Database>,
  job: WebhookJob,
  event: StatusChanged,
  mirrored: MirroredConnection | undefined,
  effects: WebhookEventEffects,
  now: Date,
): Promise<HandledOutcome> {
  const { connectionId } = event
  const known = await knownFromMirror(effects, connectionId, mirrored)
  if (!known) return uninterpretable(db, job, unknownConnection(event), effects, now)
  const { status } = event
  let { errorCode, errorMessage } = event
  // What the event leaves out, the bank's connection says: a status it did not give (or gave in words bankrec does
  // not know) is read from the bank, whose answer is recorded as any read is; error fields likewise.
  if (
    status === undefined ||
    (status !== 'active' && (errorCode === undefined || errorMessage === undefined))
  ) {
    const read = known.read ?? (await effects.lookupConnection(connectionId))
    if (!read) return uninterpretable(db, job, unknownConnection(event), effects, now)
    if (!known.read) await effects.recordConnection(read)
    if (status === undefined) {
      if (read.status === 'active') await effects.requestSync(connectionId, 'became active')
      return claimOnly(db, job.eventId, event.type, 'processed', now)
    }
    // Only fields the event left out; an explicit null is the bank saying "none".
    const sameStatus = read.status === status
    if (errorCode === undefined) errorCode = sameStatus ? read.errorCode : null
    if (errorMessage === undefined) errorMessage = sameStatus ? read.errorMessage : null
  }
  const change = {
    connectionId,
    // A fresh read already shows the new status, so only the mirror's row tells what it was before.
    previousStatus: event.previousStatus ?? (known.read ? null : known.status),
    enteredFrom: event.previousStatus ?? null,
    status,
    errorCode: errorCode ?? null,
    errorMessage: errorMessage ?? null,
    eventId: job.eventId,
    occurredAt: event.occurredAt ?? job.receivedAt,
  }
  await effects.onStatusChanged(change)
  // Seed: sync is accepted only for ready connections; becoming active is when there is data to pull.
  if (status === 'active') await effects.requestSync(connectionId, 'became active')
  const claimed = await db.transaction().execute(async (trx) => {
    if (!(await claimEvent(trx, job.eventId, event.type, 'processed', now))) return false
    await recordStatus(
      trx,
      { ...change, source: 'webhook', changedAt: change.occurredAt },
      change.previousStatus,
    )
    return true
  })
  return claimed ? 'processed' : 'duplicate'
}

/**
 * Never dropped: the safety-net sync of every connection the event could concern (the sync stream is the truth),
 * an alert once per kind of problem, then the event with its body and an exception, claimed together.
 */
async function uninterpretable(
  db: Kysely<Database>,
  job: WebhookJob,
  event: Uninterpretable,
  effects: WebhookEventEffects,
  now: Date,
): Promise<HandledOutcome> {
  const concerned: string[] = []
  for (const connectionId of event.connectionIds) {
    if (await knownFor(db, effects, connectionId)) concerned.push(connectionId)
  }
  for (const connectionId of concerned) await effects.requestSync(connectionId, 'uninterpretable event')
  if (concerned.length === 0) await effects.requestSyncOfAll('uninterpretable event')
  const action =
    concerned.length === 0
      ? 'bankrec requested a sync of every connection.'
      : `bankrec requested a sync of connection ${concerned.join(', ')}.`
  await effects.onUninterpretable({
    eventId: job.eventId,
    type: event.type,
    problem: event.problem,
    detail: event.detail,
    action,
  })
  const claimed = await db.transaction().execute(async (trx) => {
    if (!(await claimEvent(trx, job.eventId, event.type ?? job.type, 'uninterpretable', now))) return false
    await recordUninterpretableEvent(
      trx,
      {
        eventId: job.eventId,
        type: event.type,
        problem: event.problem,
        detail: event.detail,
        connectionIds: event.connectionIds,
        body: job.eventJson ?? JSON.stringify(job.event),
        receivedAt: job.receivedAt,
        action,
      },
      now,
    )
    return true
  })
  return claimed ? 'uninterpretable' : 'duplicate'
}

// ── the worker that takes the webhook-events queue ──────────────────────────────────────────────────────────────

export type EventWorkerDeps = {
  db: Kysely<Database>
  backend: QueueBackendConfig
  effects: WebhookEventEffects
  clock: Clock
  logger: Logger
  /** @defaultValue 4 */
  concurrency?: number
  /**
   * How long a job stays locked to a worker that stopped renewing it (crashed): another worker takes it over
   * after this. @defaultValue BullMQ's 30000
   */
  jobLockMs?: number
  /** Prunes event records past their retention after events (`createEventRetention`); none when absent. */
  retention?: EventRetention
}

/**
 * The event id the receiver answered with, which the job carries. A job queued by an earlier version (still in a
 * queue after an upgrade) has none; for it, that version's rule: the envelope's string `id`, else the job id.
 */
export function eventIdOfJob(data: WebhookJobData, jobId: string | undefined): string {
  if (typeof data.eventId === 'string' && data.eventId !== '') return data.eventId
  const id = typeof data.event === 'object' && data.event !== null ? data.event.id : undefined
  return typeof id === 'string' ? id : String(jobId)
}

/** Processes verified webhook deliveries from the receiver's queue, each event's effects once. */
export function createEventWorker(deps: EventWorkerDeps): Worker<WebhookJobData, HandledOutcome> {
  return createBackendWorker<WebhookJobData, HandledOutcome>(
    WEBHOOK_EVENTS_QUEUE,
    deps.backend,
    async (job) => {
      const eventId = eventIdOfJob(job.data, job.id)
      const outcome = await handleWebhookEvent(
        deps.db,
        {
          eventId,
          type: job.name,
          event: job.data.event,
          receivedAt: job.data.receivedAt,
          ignored: job.data.ignored,
        },
        deps.effects,
        deps.clock.now(),
      )
      // The body stays out of the log: it is kept in uninterpretable_events for whoever needs it.
      if (outcome === 'uninterpretable')
        deps.logger.warn({ eventId, type: job.name }, 'webhook event not interpretable')
      else deps.logger.info({ eventId, type: job.name, outcome }, 'webhook event handled')
      await deps.retention?.afterEvent()
      return outcome
    },
    {
      concurrency: deps.concurrency ?? 4,
      ...(deps.jobLockMs ? { lockDuration: deps.jobLockMs, stalledInterval: deps.jobLockMs } : {}),
    },
  )
}
