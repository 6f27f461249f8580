import { TERMINAL_TRANSFER_STATUSES, type TransferStatus } from '../api-client/index.js'
import type { TransferPollSchedule } from './config.js'
import { deterministicId } from './incident-id.js'

/** The statuses operations hear about. */
export type TransferAlertKind = 'pending_bank_approval' | 'failed' | 'returned' | 'cancelled' | 'unknown'
const ALERTING: ReadonlySet<TransferStatus> = new Set<TransferAlertKind>([
  'pending_bank_approval',
  'failed',
  'returned',
  'cancelled',
  'unknown',
])
const isAlerting = (status: TransferStatus): status is TransferAlertKind => ALERTING.has(status)

/** Statuses that stay open (reminded, then closed with a notice) rather than alerting once. */
const STAYS_OPEN: ReadonlySet<TransferStatus> = new Set<TransferAlertKind>([
  'pending_bank_approval',
  'unknown',
])

const TERMINAL: ReadonlySet<TransferStatus> = new Set(TERMINAL_TRANSFER_STATUSES)

export type TransferIncident = {
  id: string
  kind: TransferAlertKind
  /** Bank time (the transfer's updatedAt) the status was first seen. */
  startedAt: string
  /** bankrec's clock: when the alert or the latest reminder went out. */
  lastAlertAt: string
  remindersSent: number
}

/** What the tracker keeps per transfer between polls. */
export type TransferTracking = {
  transferId: string
  status: TransferStatus | null
  incident: TransferIncident | null
}

export type TransferObservation = {
  status: TransferStatus
  failureReason?: { message: string } | null
  /** The transfer's updatedAt. */
  observedAt: string
}

type Base = { id: string; transferId: string; occurredAt: string }

export type TransferAlertEffect = Base & {
  type: 'alert'
  incidentId: string
  kind: TransferAlertKind
  status: TransferStatus
  failureReason: string | null
  observedAt: string
}

export type TransferReminderEffect = Base & {
  type: 'reminder'
  incidentId: string
  kind: TransferAlertKind
  sequence: number
  startedAt: string
}

/** The transfer left pending_bank_approval or unknown for a status that needs nobody. */
export type TransferRecoveryEffect = Base & {
  type: 'recovery'
  incidentId: string
  kind: TransferAlertKind
  status: TransferStatus
  startedAt: string
  observedAt: string
}

/** An outbound event to the app. */
export type TransferAppEvent = Base & {
  type: 'app_event'
  event: 'transfer.completed' | 'transfer.failed'
  status: TransferStatus
  failureReason: string | null
  observedAt: string
}

export type TransferEffect =
  TransferAlertEffect | TransferReminderEffect | TransferRecoveryEffect | TransferAppEvent
export type TransferStep = {
  tracking: TransferTracking
  effects: TransferEffect[]
  /** Polling stops at a terminal status. */
  terminal: boolean
}

export function newTransferTracking(transferId: string): TransferTracking {
  return { transferId, status: null, incident: null }
}

/**
 * The alerts and app events that follow one transfer status seen while polling. A status equal to the
 * previous one yields nothing, so a poll repeated after a crash changes nothing.
 */
export function observeTransfer(
  tracking: TransferTracking,
  observation: TransferObservation,
  now: Date,
): TransferStep {
  const { transferId } = tracking
  const { status } = observation
  const observedAt = new Date(observation.observedAt).toISOString()
  const occurredAt = now.toISOString()
  const failureReason = observation.failureReason?.message ?? null
  const terminal = TERMINAL.has(status)
  if (status === tracking.status) return { tracking, effects: [], terminal }

  const effects: TransferEffect[] = []
  const open = tracking.incident
  // Leaving an open status for another alerting one is covered by that status's own alert.
  if (open !== null && !isAlerting(status)) {
    effects.push({
      type: 'recovery',
      id: `${open.id}:recovery`,
      transferId,
      incidentId: open.id,
      kind: open.kind,
      status,
      startedAt: open.startedAt,
      observedAt,
      occurredAt,
    })
  }
  let incident: TransferIncident | null = null
  if (isAlerting(status)) {
    const incidentId = deterministicId('transfer-incident', transferId, status, observedAt)
    effects.push({
      type: 'alert',
      id: `${incidentId}:alert`,
      transferId,
      incidentId,
      kind: status,
      status,
      failureReason,
      observedAt,
      occurredAt,
    })
    if (STAYS_OPEN.has(status)) {
      incident = {
        id: incidentId,
        kind: status,
        startedAt: observedAt,
        lastAlertAt: occurredAt,
        remindersSent: 0,
      }
    }
  }
  if (status === 'completed' || status === 'failed' || status === 'returned' || status === 'cancelled') {
    effects.push({
      type: 'app_event',
      id: deterministicId('transfer-event', transferId, status, observedAt),
      event: status === 'completed' ? 'transfer.completed' : 'transfer.failed',
      transferId,
      status,
      failureReason,
      observedAt,
      occurredAt,
    })
  }
  return { tracking: { ...tracking, status, incident }, effects, terminal }
}

/** A reminder every reminderSeconds while a transfer waits for approval in the bank portal. */
export function tickTransfer(
  tracking: TransferTracking,
  now: Date,
  thresholds: { reminderSeconds: number },
): { tracking: TransferTracking; effects: TransferReminderEffect[] } {
  const { incident } = tracking
  if (incident === null || incident.kind !== 'pending_bank_approval') return { tracking, effects: [] }
  if (now.getTime() - Date.parse(incident.lastAlertAt) < thresholds.reminderSeconds * 1000) {
    return { tracking, effects: [] }
  }
  const sequence = incident.remindersSent + 1
  const occurredAt = now.toISOString()
  return {
    tracking: { ...tracking, incident: { ...incident, lastAlertAt: occurredAt, remindersSent: sequence } },
    effects: [
      {
        type: 'reminder',
        id: `${incident.id}:reminder:${sequence}`,
        transferId: tracking.transferId,
        incidentId: incident.id,
        kind: incident.kind,
        sequence,
        startedAt: incident.startedAt,
        occurredAt,
      },
    ],
  }
}

/**
 * Seconds to wait before poll number `attempt` (0 for the first) of a non-terminal transfer: initialSeconds ×
 * factor^attempt, never more than maxSeconds. No jitter here: the queue adds it if many transfers align.
 */
export function transferPollDelaySeconds(attempt: number, schedule: TransferPollSchedule): number {
  if (!Number.isSafeInteger(attempt) || attempt < 0) {
    throw new RangeError('attempt must be a whole number from 0')
  }
  return Math.min(schedule.maxSeconds, Math.round(schedule.initialSeconds * schedule.factor ** attempt))
}
