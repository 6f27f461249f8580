import type { ConnectionStatus } from '../api-client/index.js'

/** What an incident is about: one of the three statuses that need a human, or one of the two time rules. */
export type IncidentKind = 'reauthRequired' | 'invalidConfig' | 'revoked' | 'errored' | 'staleSync'

/** How many observations and closed incidents a record keeps to recognise duplicates and late arrivals. */
export const SEEN_LIMIT = 50
export const CLOSED_INCIDENT_LIMIT = 20

export type ObservationSource = 'webhook' | 'poll' | 'sync'

/** One status seen: a connection.status_changed event, or a connection read while polling or syncing. */
export type HealthObservation = {
  status: ConnectionStatus
  errorCode?: string | null
  errorMessage?: string | null
  /** The bank's time: the event's createdAt, or the connection's updatedAt. */
  observedAt: string
  /** From a connection read; webhook events do not carry it. */
  lastSyncedAt?: string | null
  source: ObservationSource
  /** The webhook event id; breaks ties between observations with the same observedAt. */
  eventId?: string | null
  /**
   * The status the bank says the connection left at observedAt (a status_changed event's previousStatus), never
   * bankrec's own belief: it shows a change between two observations of the same status that bankrec missed.
   */
  enteredFrom?: ConnectionStatus | null
}

export type OpenIncident = {
  id: string
  kind: IncidentKind
  /** When the problem began (bank time). */
  startedAt: string
  /** When the incident opened (bank time); with the connection id and kind it makes the id. */
  openedAt: string
  /** bankrec's clock: when the alert or the latest reminder went out. */
  lastAlertAt: string
  remindersSent: number
}

export type ClosedIncident = { id: string; kind: IncidentKind; startedAt: string; closedAt: string }

/** Observations are ordered by observedAt, then eventId (none sorts first). */
export type ObservationKey = { observedAt: string; eventId: string | null }
export type SeenObservation = ObservationKey & { status: ConnectionStatus }

/** The health of one connection, as the store keeps it between observations. */
export type ConnectionHealth = {
  connectionId: string
  status: ConnectionStatus | null
  /** observedAt of the first applied observation of the current status. */
  statusSince: string | null
  errorCode: string | null
  errorMessage: string | null
  lastSyncedAt: string | null
  lastApplied: ObservationKey | null
  /**
   * The status_changed event that told of the connection entering its current status; null while only reads
   * (polls, syncs) have shown it. Absent from records stored before it was kept, which count as told.
   */
  enteredBy?: string | null
  incident: OpenIncident | null
  /** The latest closed incidents, newest last, at most CLOSED_INCIDENT_LIMIT. */
  closedIncidents: ClosedIncident[]
  /** The newest observations, applied or not, ascending, at most SEEN_LIMIT. */
  seen: SeenObservation[]
}

/** What one observation says of a connection's status, with its fields filled in. */
export type ObservedStatus = {
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  observedAt: string
  lastSyncedAt: string | null
  source: ObservationSource
  eventId: string | null
}

/** Every observation goes to the status history; `applied: false` when it was a duplicate or arrived late. */
export type HistoryEffect = ObservedStatus & {
  type: 'history'
  connectionId: string
  applied: boolean
  duplicate: boolean
}

type NoticeBase = {
  /** Stable across replays: the store delivers each id once. */
  id: string
  connectionId: string
  /** bankrec's clock when the effect was decided. */
  occurredAt: string
}

export type AlertEffect = NoticeBase & {
  type: 'alert'
  incidentId: string
  kind: IncidentKind
  sequence: 0
  startedAt: string
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  /** Set for staleSync only. */
  lastSyncedAt: string | null
  /** The incident this one replaces, when the problem changed kind while open. */
  supersedes: string | null
}

export type ReminderEffect = NoticeBase & {
  type: 'reminder'
  incidentId: string
  kind: IncidentKind
  /** 1 for the first reminder. */
  sequence: number
  startedAt: string
  status: ConnectionStatus
  errorCode: string | null
  errorMessage: string | null
  lastSyncedAt: string | null
}

export type RecoveryEffect = NoticeBase & {
  type: 'recovery'
  incidentId: string
  kind: IncidentKind
  startedAt: string
  /** Bank time the connection was seen healthy again. */
  recoveredAt: string
}

export type InfoEffect = NoticeBase & {
  type: 'info'
  kind: 'paused' | 'resumed'
  observedAt: string
  errorCode: string | null
  errorMessage: string | null
}

export type HealthEffect = HistoryEffect | AlertEffect | ReminderEffect | RecoveryEffect | InfoEffect
export type HealthTransition = { record: ConnectionHealth; effects: HealthEffect[] }

export function emptyHealth(connectionId: string): ConnectionHealth {
  return {
    connectionId,
    status: null,
    statusSince: null,
    errorCode: null,
    errorMessage: null,
    lastSyncedAt: null,
    lastApplied: null,
    enteredBy: null,
    incident: null,
    closedIncidents: [],
    seen: [],
  }
}
