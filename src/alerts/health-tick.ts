import type { HealthThresholds } from './config.js'
import type { ConnectionHealth, HealthTransition, ReminderEffect } from './health-record.js'
import { closeIncident, iso, latest, ms, openIncident, recoveryFor } from './health-incident.js'

function staleReference(record: ConnectionHealth): number | null {
  // A connection that has just become active again gets the full threshold to sync before it counts as stale.
  const reference = latest(record.lastSyncedAt, record.statusSince)
  return reference === null ? null : ms(reference)
}

/**
 * The time-driven rules, run on bankrec's clock: an errored connection past erroredAfterSeconds and an active
 * connection whose last sync is older than staleSyncSeconds open an incident; a stale-sync incident recovers
 * once the sync is fresh; an open incident gets a reminder every reminderSeconds.
 */
export function tick(record: ConnectionHealth, now: Date, thresholds: HealthThresholds): HealthTransition {
  const nowMs = now.getTime()
  const { incident } = record
  if (record.status === null) return { record, effects: [] }
  const reference = staleReference(record)
  const stale =
    record.status === 'active' &&
    reference !== null &&
    nowMs - reference >= thresholds.staleSyncSeconds * 1000

  if (incident === null) {
    if (record.status === 'errored' && record.statusSince !== null) {
      const openedMs = ms(record.statusSince) + thresholds.erroredAfterSeconds * 1000
      if (nowMs < openedMs) return { record, effects: [] }
      return openIncident(
        record,
        {
          kind: 'errored',
          startedAt: record.statusSince,
          openedAt: iso(openedMs),
          status: 'errored',
          errorCode: record.errorCode,
          errorMessage: record.errorMessage,
          lastSyncedAt: null,
          supersedes: null,
        },
        now,
      )
    }
    if (stale && reference !== null) {
      const openedAt = iso(reference + thresholds.staleSyncSeconds * 1000)
      return openIncident(
        record,
        {
          kind: 'staleSync',
          startedAt: openedAt,
          openedAt,
          status: 'active',
          errorCode: record.errorCode,
          errorMessage: record.errorMessage,
          lastSyncedAt: record.lastSyncedAt,
          supersedes: null,
        },
        now,
      )
    }
    return { record, effects: [] }
  }

  if (incident.kind === 'staleSync' && record.status === 'active' && !stale && reference !== null) {
    const recoveredAt = iso(reference)
    return {
      record: closeIncident(record, recoveredAt),
      effects: [recoveryFor(record.connectionId, incident, recoveredAt, now)],
    }
  }

  if (nowMs - ms(incident.lastAlertAt) < thresholds.reminderSeconds * 1000) return { record, effects: [] }
  const sequence = incident.remindersSent + 1
  const reminder: ReminderEffect = {
    type: 'reminder',
    id: `${incident.id}:reminder:${sequence}`,
    connectionId: record.connectionId,
    incidentId: incident.id,
    kind: incident.kind,
    sequence,
    startedAt: incident.startedAt,
    status: record.status,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    lastSyncedAt: record.lastSyncedAt,
    occurredAt: iso(nowMs),
  }
  // One reminder per tick even when several intervals passed: a late tick must not burst reminders.
  return {
    record: {
      ...record,
      incident: { ...incident, lastAlertAt: reminder.occurredAt, remindersSent: sequence },
    },
    effects: [reminder],
  }
}
