import type { ConnectionStatus } from '../api-client/index.js'
import type { HealthThresholds } from './config.js'
import {
  CLOSED_INCIDENT_LIMIT,
  SEEN_LIMIT,
  type AlertEffect,
  type ConnectionHealth,
  type HealthObservation,
  type HealthTransition,
  type HistoryEffect,
  type IncidentKind,
  type InfoEffect,
  type ObservationKey,
  type ObservationSource,
  type OpenIncident,
  type RecoveryEffect,
  type ReminderEffect,
  type SeenObservation,
} from './health-record.js'
import { incidentIdFor } from './incident-id.js'

type StatusIncidentKind = 'reauthRequired' | 'invalidConfig' | 'revoked'

const STATUS_INCIDENTS: ReadonlySet<string> = new Set<StatusIncidentKind>([
  'reauthRequired',
  'invalidConfig',
  'revoked',
])
const isStatusIncident = (status: ConnectionStatus): status is StatusIncidentKind =>
  STATUS_INCIDENTS.has(status)

const ms = (iso: string) => Date.parse(iso)
const iso = (millis: number) => new Date(millis).toISOString()

function canonical(value: string, field: string): string {
  const millis = Date.parse(value)
  if (!Number.isFinite(millis)) throw new RangeError(`${field} must be an ISO 8601 date-time`)
  return iso(millis)
}

export function compareKeys(a: ObservationKey, b: ObservationKey): number {
  const byTime = ms(a.observedAt) - ms(b.observedAt)
  if (byTime !== 0) return byTime
  const x = a.eventId ?? ''
  const y = b.eventId ?? ''
  return x < y ? -1 : x > y ? 1 : 0
}

function latest(a: string | null, b: string | null): string | null {
  if (a === null) return b
  if (b === null) return a
  return ms(b) > ms(a) ? b : a
}

function remember(seen: SeenObservation[], entry: SeenObservation): SeenObservation[] {
  const next = [...seen, entry].sort(compareKeys)
  return next.slice(Math.max(0, next.length - SEEN_LIMIT))
}

function closeIncident(record: ConnectionHealth, closedAt: string): ConnectionHealth {
  const { incident } = record
  if (incident === null) return record
  const closed = { id: incident.id, kind: incident.kind, startedAt: incident.startedAt, closedAt }
  return {
    ...record,
    incident: null,
    closedIncidents: [...record.closedIncidents, closed].slice(-CLOSED_INCIDENT_LIMIT),
  }
}

type Opening = {
  kind: IncidentKind
  startedAt: string
  openedAt: string
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  lastSyncedAt: string | null
  supersedes: string | null
}

function alertFor(connectionId: string, opening: Opening, now: Date): AlertEffect {
  const incidentId = incidentIdFor(connectionId, opening.kind, opening.openedAt)
  return {
    type: 'alert',
    id: `${incidentId}:alert`,
    connectionId,
    incidentId,
    sequence: 0,
    occurredAt: iso(now.getTime()),
    ...opening,
  }
}

function openIncident(record: ConnectionHealth, opening: Opening, now: Date): HealthTransition {
  const alert = alertFor(record.connectionId, opening, now)
  const incident: OpenIncident = {
    id: alert.incidentId,
    kind: opening.kind,
    startedAt: opening.startedAt,
    openedAt: opening.openedAt,
    lastAlertAt: alert.occurredAt,
    remindersSent: 0,
  }
  return { record: { ...record, incident }, effects: [alert] }
}

function recoveryFor(
  connectionId: string,
  incident: Pick<OpenIncident, 'id' | 'kind' | 'startedAt'>,
  recoveredAt: string,
  now: Date,
): RecoveryEffect {
  return {
    type: 'recovery',
    id: `${incident.id}:recovery`,
    connectionId,
    incidentId: incident.id,
    kind: incident.kind,
    startedAt: incident.startedAt,
    recoveredAt,
    occurredAt: iso(now.getTime()),
  }
}

function infoFor(
  record: ConnectionHealth,
  kind: InfoEffect['kind'],
  observedAt: string,
  now: Date,
): InfoEffect {
  return {
    type: 'info',
    id: `${record.connectionId}:${kind}:${observedAt}`,
    connectionId: record.connectionId,
    kind,
    observedAt,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    occurredAt: iso(now.getTime()),
  }
}

type Normalized = {
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  observedAt: string
  lastSyncedAt: string | null
  source: ObservationSource
  eventId: string | null
  enteredFrom: ConnectionStatus | null
}

function normalize(observation: HealthObservation): Normalized {
  return {
    status: observation.status,
    errorCode: observation.errorCode ?? null,
    errorMessage: observation.errorMessage ?? null,
    observedAt: canonical(observation.observedAt, 'observedAt'),
    lastSyncedAt:
      observation.lastSyncedAt == null ? null : canonical(observation.lastSyncedAt, 'lastSyncedAt'),
    source: observation.source,
    eventId: observation.eventId ?? null,
    enteredFrom: observation.enteredFrom ?? null,
  }
}

/** An observation newer than every applied one: it sets the status and may open or close an incident. */
function applyCurrent(record: ConnectionHealth, obs: Normalized, now: Date): HealthTransition {
  const previous = record.status
  let next: ConnectionHealth = {
    ...record,
    status: obs.status,
    statusSince: previous === obs.status ? record.statusSince : obs.observedAt,
    errorCode: obs.errorCode,
    errorMessage: obs.errorMessage,
    lastApplied: { observedAt: obs.observedAt, eventId: obs.eventId },
  }
  const open = record.incident
  if (isStatusIncident(obs.status)) {
    if (open !== null && open.kind === obs.status) return { record: next, effects: [] }
    // A different problem (reauthRequired becoming revoked, say) replaces the open incident with a new alert;
    // the connection did not recover, so no recovery is sent for the old one.
    if (open !== null) next = closeIncident(next, obs.observedAt)
    return openIncident(
      next,
      {
        kind: obs.status,
        startedAt: obs.observedAt,
        openedAt: obs.observedAt,
        status: obs.status,
        errorCode: obs.errorCode,
        errorMessage: obs.errorMessage,
        lastSyncedAt: null,
        supersedes: open?.id ?? null,
      },
      now,
    )
  }
  if (obs.status === 'active') {
    // A stale-sync incident closes only once a sync is fresh again (tick); every other kind closes on active.
    if (open !== null && open.kind !== 'staleSync') {
      return {
        record: closeIncident(next, obs.observedAt),
        effects: [recoveryFor(next.connectionId, open, obs.observedAt, now)],
      }
    }
    if (previous === 'paused')
      return { record: next, effects: [infoFor(next, 'resumed', obs.observedAt, now)] }
  }
  if (obs.status === 'paused' && previous !== 'paused') {
    return { record: next, effects: [infoFor(next, 'paused', obs.observedAt, now)] }
  }
  return { record: next, effects: [] }
}

/**
 * A current observation the bank says entered its status from another one. When bankrec still believes the
 * status it enters, with the open incident older than the change, the connection left it in between unseen
 * (a lost webhook, a poll between the two): the stated status is applied first, at the same moment, so a
 * recovery and a new incident are not merged into one.
 */
function applyEntered(record: ConnectionHealth, obs: Normalized, now: Date): HealthTransition {
  const from = obs.enteredFrom
  const missed =
    from !== null &&
    from !== obs.status &&
    record.status === obs.status &&
    record.incident !== null &&
    ms(record.incident.startedAt) < ms(obs.observedAt)
  if (!missed) return applyCurrent(record, obs, now)
  const left = applyCurrent(record, { ...obs, status: from, errorCode: null, errorMessage: null }, now)
  const entered = applyCurrent(left.record, obs, now)
  return { record: entered.record, effects: [...left.effects, ...entered.effects] }
}

function coveredAt(record: ConnectionHealth, at: number): boolean {
  if (record.incident !== null && ms(record.incident.startedAt) <= at) return true
  return record.closedIncidents.some((c) => ms(c.startedAt) <= at && at < ms(c.closedAt))
}

/**
 * An observation older than the last applied one never changes the current status. It matters only when it
 * shows a status that needs a human at a time no known incident covers: if a later known observation shows
 * the connection active again, the missed incident is reported with its recovery; if not, and nothing is
 * open, the incident opens now. This keeps "one alert and one recovery" whatever order the same events arrive
 * in.
 */
function applyLate(record: ConnectionHealth, obs: Normalized, now: Date): HealthTransition {
  if (!isStatusIncident(obs.status) || coveredAt(record, ms(obs.observedAt))) return { record, effects: [] }
  const opening: Opening = {
    kind: obs.status,
    startedAt: obs.observedAt,
    openedAt: obs.observedAt,
    status: obs.status,
    errorCode: obs.errorCode,
    errorMessage: obs.errorMessage,
    lastSyncedAt: null,
    supersedes: null,
  }
  for (const later of record.seen.filter((s) => compareKeys(s, obs) > 0)) {
    if (coveredAt(record, ms(later.observedAt))) return { record, effects: [] }
    if (later.status === 'active') {
      const alert = alertFor(record.connectionId, opening, now)
      const closed = {
        id: alert.incidentId,
        kind: opening.kind,
        startedAt: opening.startedAt,
        closedAt: later.observedAt,
      }
      return {
        record: {
          ...record,
          closedIncidents: [...record.closedIncidents, closed].slice(-CLOSED_INCIDENT_LIMIT),
        },
        effects: [alert, recoveryFor(record.connectionId, closed, later.observedAt, now)],
      }
    }
  }
  if (record.incident !== null) return { record, effects: [] }
  return openIncident(record, opening, now)
}

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

/**
 * Applies one observation. Duplicates (same observedAt and eventId) and observations older than the last
 * applied one are recorded in history but do not change the status; lastSyncedAt only moves forward. The
 * time-driven rules of `tick` run afterwards with the same `now`.
 */
export function observe(
  record: ConnectionHealth,
  observation: HealthObservation,
  now: Date,
  thresholds: HealthThresholds,
): HealthTransition {
  const obs = normalize(observation)
  const history = (applied: boolean, duplicate: boolean): HistoryEffect => ({
    type: 'history',
    connectionId: record.connectionId,
    ...obs,
    applied,
    duplicate,
  })
  const base: ConnectionHealth = { ...record, lastSyncedAt: latest(record.lastSyncedAt, obs.lastSyncedAt) }
  const entry: SeenObservation = { observedAt: obs.observedAt, eventId: obs.eventId, status: obs.status }
  const oldest = record.seen[0]

  let step: HealthTransition
  if (record.seen.some((s) => compareKeys(s, entry) === 0)) {
    step = { record: base, effects: [history(false, true)] }
  } else if (record.lastApplied !== null && compareKeys(entry, record.lastApplied) < 0) {
    // Older than everything remembered: nothing left to compare it with, so it is only recorded.
    const forgotten =
      record.seen.length >= SEEN_LIMIT && oldest !== undefined && compareKeys(entry, oldest) < 0
    if (forgotten) {
      step = { record: base, effects: [history(false, false)] }
    } else {
      const late = applyLate({ ...base, seen: remember(base.seen, entry) }, obs, now)
      step = { record: late.record, effects: [history(false, false), ...late.effects] }
    }
  } else {
    const current = applyEntered({ ...base, seen: remember(base.seen, entry) }, obs, now)
    step = { record: current.record, effects: [history(true, false), ...current.effects] }
  }
  const timed = tick(step.record, now, thresholds)
  return { record: timed.record, effects: [...step.effects, ...timed.effects] }
}
