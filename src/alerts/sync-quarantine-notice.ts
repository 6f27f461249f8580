import type { AlertNotice } from './notice.js'

/** A kind of unreadable sync event whose exception has just opened (see src/sync/sync-quarantine.ts). */
export type SyncQuarantineIncident = {
  problem: string
  detail: string
  open: number
}

/**
 * What operations hear, once per kind of problem, when sync events fit no dialect: the connection keeps syncing,
 * the events wait in quarantine, and someone should tell bankrec's maintainers what the bank sent.
 */
export function syncQuarantineNotice(
  incident: SyncQuarantineIncident,
  connectionId: string,
  occurredAt: string,
): AlertNotice {
  return {
    // One notice per kind, ever: publishing it again sends nothing new.
    id: `sync-quarantine:${incident.problem}`,
    type: 'alert',
    severity: 'warning',
    routeSeverity: 'warning',
    kind: 'unreadable_sync_event',
    incidentId: null,
    subject: { connection: { id: connectionId, institutionName: null, portalUrl: null } },
    title: `Sync events bankrec cannot read (${incident.problem})`,
    text:
      `Connection ${connectionId} sent sync events that fit no known dialect: ${incident.detail}. ` +
      `Syncing goes on; ${incident.open} event(s) wait in quarantine and the next sync re-reads the ` +
      `transactions they name from the bank.`,
    action:
      'Look at the raw events in the sync_quarantine table and report their shape to bankrec. Events that name ' +
      "no transaction stay until the connection's sync stream restarts (its backfill covers them).",
    fields: [
      { label: 'Connection', value: connectionId },
      { label: 'Problem', value: incident.problem },
      { label: 'Quarantined', value: String(incident.open) },
    ],
    occurredAt,
  }
}
