import { deterministicId } from './incident-id.js'
import type { AlertNotice } from './notice.js'

/**
 * The notice for an accepted webhook event set aside in the dead-letter list instead of queued (issue 17, finding
 * 2): the bank was answered 2xx, so it will not send the event again, and only a person can recover it. One
 * notice per dead entry (its id is a digest of the entry), however often it is reported.
 */
export function deadLetterNotice(
  dead: { entry: string; eventId: string | null; type: string | null; reason: string; list: string },
  occurredAt: Date,
): AlertNotice {
  return {
    id: deterministicId('webhook-dead-letter', dead.entry),
    type: 'alert',
    severity: 'critical',
    routeSeverity: 'critical',
    kind: 'webhook_dead_letter',
    incidentId: null,
    subject: { event: { id: dead.eventId ?? '(unreadable)', type: dead.type } },
    title: 'An accepted webhook event could not be queued',
    text:
      `The receiver accepted event ${dead.eventId ?? '(no id)'} but it could not be moved into the queue ` +
      `(${dead.reason}); it is kept in the Redis list ${dead.list} and has not been processed.`,
    action:
      'Inspect the entry in the dead-letter list, fix its cause, then push it back onto the inbox list or trigger a ' +
      'sync of the connection it concerns (a sync always catches up).',
    fields: [
      { label: 'Event', value: dead.eventId ?? '(no id)' },
      { label: 'Type', value: dead.type ?? '(unknown)' },
      { label: 'Dead-letter list', value: dead.list },
    ],
    occurredAt: occurredAt.toISOString(),
  }
}
