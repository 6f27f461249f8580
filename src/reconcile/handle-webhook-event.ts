import type { Kysely } from 'kysely'
import { KnownEvent } from '../api-client/index.js'
import type { WebhookJob } from '../queue/index.js'
import { claimEvent, isEventProcessed, recordStatus, type Database } from '../store/index.js'

export type WebhookEventEffects = {
  /** Queue a sync of the connection (idempotent: at most one waiting per connection). */
  requestSync(connectionId: string, reason: string): Promise<void>
  /** A status change reached bankrec (connection health, alerts). */
  onStatusChanged?(change: {
    connectionId: string
    previousStatus: string | null
    status: string
    errorCode: string | null
    errorMessage: string | null
    eventId: string
    occurredAt: string
  }): Promise<void>
}

export type HandledOutcome = 'processed' | 'ignored' | 'duplicate'

/**
 * What one queued webhook event does. The event id is claimed in the same transaction as the store writes, so a
 * redelivered or retried event writes them once; effects outside the database (queueing a sync, health) are
 * idempotent by themselves and run first.
 */
export async function handleWebhookEvent(
  db: Kysely<Database>,
  job: WebhookJob,
  effects: WebhookEventEffects,
): Promise<HandledOutcome> {
  const parsed = KnownEvent.safeParse(job.event)
  if (job.ignored || !parsed.success) {
    return (await claimEvent(db, job.eventId, job.type, 'ignored')) ? 'ignored' : 'duplicate'
  }
  const event = parsed.data
  if (await isEventProcessed(db, event.id)) return 'duplicate'
  // Effects outside this database run before the claim commits. Each is idempotent (a sync request collapses into
  // the connection's one job; health observations dedupe by event id), so a crash between them and the claim
  // repeats them on the retried job instead of losing them.
  if (event.type === 'transactions.sync_available') {
    await effects.requestSync(event.data.connectionId, 'webhook')
  } else if (event.type === 'connection.status_changed') {
    await effects.onStatusChanged?.({
      connectionId: event.data.connectionId,
      previousStatus: event.data.previousStatus,
      status: event.data.status,
      errorCode: event.data.errorCode,
      errorMessage: event.data.errorMessage,
      eventId: event.id,
      occurredAt: event.createdAt,
    })
    // Seed: sync is accepted only for ready connections; becoming active is when there is data to pull.
    if (event.data.status === 'active') await effects.requestSync(event.data.connectionId, 'became active')
  }
  const claimed = await db.transaction().execute(async (trx) => {
    if (!(await claimEvent(trx, event.id, event.type, 'processed'))) return false
    if (event.type === 'connection.status_changed') {
      await recordStatus(
        trx,
        {
          connectionId: event.data.connectionId,
          status: event.data.status,
          errorCode: event.data.errorCode,
          errorMessage: event.data.errorMessage,
          source: 'webhook',
          eventId: event.id,
          changedAt: event.createdAt,
        },
        event.data.previousStatus,
      )
    }
    return true
  })
  return claimed ? 'processed' : 'duplicate'
}
