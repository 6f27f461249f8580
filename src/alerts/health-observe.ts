import type { HealthThresholds } from './config.js'
import {
  CLOSED_INCIDENT_LIMIT,
  SEEN_LIMIT,
  type ConnectionHealth,
  type HealthObservation,
  type HealthTransition,
  type HistoryEffect,
  type SeenObservation,
} from './health-record.js'
import {
  alertFor,
  closeIncident,
  compareKeys,
  infoFor,
  isStatusIncident,
  latest,
  ms,
  normalize,
  openIncident,
  recoveryFor,
  remember,
  type Normalized,
  openingOf,
} from './health-incident.js'
import { tick } from './health-tick.js'

// Applying one observation of a connection's status to its health record (the event-driven rules).

/**
 * The event that told of entering the status `obs` leaves: a change of status is told by its own event (none for a
 * read); a status only reads have shown so far is told by the first event entering it from another one, which is
 * the webhook of the very change the read saw (the bank stamps its event a moment after the connection's
 * updatedAt, so the event looks newer than the read).
 */
function enteredByAfter(record: ConnectionHealth, obs: Normalized): string | null | undefined {
  if (record.status !== obs.status) return obs.eventId
  if (record.enteredBy !== null) return record.enteredBy
  return obs.enteredFrom === obs.status ? null : obs.eventId
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
    enteredBy: enteredByAfter(record, obs),
  }
  const open = record.incident
  if (isStatusIncident(obs.status)) {
    if (open !== null && open.kind === obs.status) return { record: next, effects: [] }
    // A different problem (reauthRequired becoming revoked, say) replaces the open incident with a new alert;
    // the connection did not recover, so no recovery is sent for the old one.
    if (open !== null) next = closeIncident(next, obs.observedAt)
    return openIncident(next, openingOf({ ...obs, status: obs.status }, open?.id ?? null), now)
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
 * status it enters, with the open incident older than the change, and another event already told of entering
 * it, the connection left it in between unseen (a lost webhook, a poll between the two): the stated status is
 * applied first, at the same moment, so a recovery and a new incident are not merged into one. While only reads
 * have shown the status, the event is the one for the change they saw (seed 99479402), not a second episode.
 */
function applyEntered(record: ConnectionHealth, obs: Normalized, now: Date): HealthTransition {
  const from = obs.enteredFrom
  const missed =
    from !== null &&
    from !== obs.status &&
    record.status === obs.status &&
    record.enteredBy !== null &&
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
  const opening = openingOf({ ...obs, status: obs.status }, null)
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
