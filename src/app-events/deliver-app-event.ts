import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import { SpanKind, contextFrom, inSpan } from '../observability/index.js'
import {
  markAppEventsDelivered,
  recordAppEventFailure,
  type Database,
  type StoredAppEvent,
} from '../store/index.js'
import type { MarkDelivered } from './delivered-marks.js'
import { appEventEnvelope, sendAppEvent } from './send-app-event.js'

// Sending one outbox row: the signed POST in its client span, then the row marked delivered or its failure noted.
// The same for the app-events queue's worker and for a dispatcher sending in place.

export type AppEventSender = {
  db: Kysely<Database>
  /** APP_WEBHOOK_URL */
  url: string
  /** APP_WEBHOOK_SECRET */
  secret: string
  clock: Clock
  fetch?: typeof fetch
  /** @defaultValue 10000 */
  timeoutMs?: number
  /** Stores a send's delivered mark; the delivery's group commit (createDeliveredMarks). @defaultValue one statement per send */
  markDelivered?: MarkDelivered
}

/**
 * Sends one outbox row to the app and marks it delivered; a refusal or no answer is recorded on the row and
 * thrown, for the caller's retry. The POST's client span continues the trace of the run that wrote the row (its
 * stored `traceparent`), in whichever process sends it.
 */
export async function deliverAppEvent(deps: AppEventSender, event: StoredAppEvent): Promise<void> {
  try {
    await inSpan(
      'POST app event',
      {
        kind: SpanKind.CLIENT,
        parent: event.traceparent ? contextFrom({ traceparent: event.traceparent }) : undefined,
        attributes: { 'http.request.method': 'POST', 'bankrec.app_event.type': event.type },
      },
      async (span) => {
        const status = await sendAppEvent(appEventEnvelope(event), {
          url: deps.url,
          secret: deps.secret,
          now: deps.clock.now(),
          fetch: deps.fetch,
          timeoutMs: deps.timeoutMs,
        })
        span.setAttribute('http.response.status_code', status)
      },
    )
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    await recordAppEventFailure(deps.db, event.id, message, deps.clock.now())
    throw error
  }
  const at = deps.clock.now()
  await (deps.markDelivered
    ? deps.markDelivered(event.id, at)
    : markAppEventsDelivered(deps.db, [{ id: event.id, at }]))
}
