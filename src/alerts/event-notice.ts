import type { AlertNotice } from './notice.js'

export type UninterpretableEventAlert = {
  eventId: string
  type: string | null
  /** The kind of problem (the envelope's UninterpretableProblem, src/webhook-envelope): one alert per kind. */
  problem: string
  detail: string
  /** What bankrec did instead, in words. */
  action: string
  occurredAt: string
}

/**
 * What operations hear when a webhook delivery could not be interpreted. The id is the kind of problem, so the
 * store sends it once: the first such event says the service's format differs; the rest are counted in /metrics
 * and listed as exceptions, not alerted again.
 */
export function uninterpretableEventNotice(event: UninterpretableEventAlert): AlertNotice {
  return {
    id: `uninterpretable-event:${event.problem}`,
    type: 'alert',
    severity: 'warning',
    routeSeverity: 'warning',
    kind: 'uninterpretable_event',
    incidentId: null,
    subject: { event: { id: event.eventId, type: event.type } },
    title: 'bankrec could not interpret a webhook event from the bank',
    text:
      `Event ${event.eventId}${event.type ? ` (${event.type})` : ''}: ${event.detail} ${event.action} ` +
      'Later events with the same problem are recorded without another alert.',
    action:
      'Nothing is lost: the sync stream is the truth. Look at the event among the exceptions ' +
      '(GET /api/exceptions?type=uninterpretable_event, or the dashboard), and report its shape to whoever ' +
      'maintains bankrec, since the service speaks a dialect bankrec does not read yet.',
    fields: [
      { label: 'Event', value: event.eventId },
      { label: 'Type', value: event.type ?? 'none' },
      { label: 'Problem', value: event.problem },
    ],
    occurredAt: event.occurredAt,
  }
}
