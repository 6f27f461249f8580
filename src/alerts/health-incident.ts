import type { ConnectionStatus } from '../api-client/index.js'
import {
  CLOSED_INCIDENT_LIMIT,
  SEEN_LIMIT,
  type AlertEffect,
  type ConnectionHealth,
  type HealthObservation,
  type HealthTransition,
  type IncidentKind,
  type InfoEffect,
  type ObservationKey,
  type ObservedStatus,
  type OpenIncident,
  type RecoveryEffect,
  type SeenObservation,
} from './health-record.js'
import { incidentIdFor } from './incident-id.js'

// The pieces the health rules (health-observe.ts, health-tick.ts) share: an observation's normal form, its order,
// and an incident's opening, alert, recovery and closing.

type StatusIncidentKind = 'reauthRequired' | 'invalidConfig' | 'revoked'

const STATUS_INCIDENTS: ReadonlySet<string> = new Set<StatusIncidentKind>([
  'reauthRequired',
  'invalidConfig',
  'revoked',
])
export const isStatusIncident = (status: ConnectionStatus): status is StatusIncidentKind =>
  STATUS_INCIDENTS.has(status)

export const ms = (iso: string) => Date.parse(iso)
export const iso = (millis: number) => new Date(millis).toISOString()

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

export function latest(a: string | null, b: string | null): string | null {
  if (a === null) return b
  if (b === null) return a
  return ms(b) > ms(a) ? b : a
}

export function remember(seen: SeenObservation[], entry: SeenObservation): SeenObservation[] {
  const next = [...seen, entry].sort(compareKeys)
  return next.slice(Math.max(0, next.length - SEEN_LIMIT))
}

export function closeIncident(record: ConnectionHealth, closedAt: string): ConnectionHealth {
  const { incident } = record
  if (incident === null) return record
  const closed = { id: incident.id, kind: incident.kind, startedAt: incident.startedAt, closedAt }
  return {
    ...record,
    incident: null,
    closedIncidents: [...record.closedIncidents, closed].slice(-CLOSED_INCIDENT_LIMIT),
  }
}

export type Opening = {
  kind: IncidentKind
  startedAt: string
  openedAt: string
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  lastSyncedAt: string | null
  supersedes: string | null
}

/** The incident an observed problem status opens, replacing `supersedes` when another was open. */
export function openingOf(obs: Normalized & { status: IncidentKind }, supersedes: string | null): Opening {
  return {
    kind: obs.status,
    startedAt: obs.observedAt,
    openedAt: obs.observedAt,
    status: obs.status,
    errorCode: obs.errorCode,
    errorMessage: obs.errorMessage,
    lastSyncedAt: null,
    supersedes,
  }
}

export function alertFor(connectionId: string, opening: Opening, now: Date): AlertEffect {
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

export function openIncident(record: ConnectionHealth, opening: Opening, now: Date): HealthTransition {
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

export function recoveryFor(
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

export function infoFor(
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

export type Normalized = ObservedStatus & { enteredFrom: ConnectionStatus | null }

export function normalize(observation: HealthObservation): Normalized {
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
