import type { AlertSeverity } from './config.js'

export type NoticeType = 'alert' | 'reminder' | 'recovery' | 'info'

/** What a notice may say about a connection. Nothing else is copied out, so no secret can slip through. */
export type ConnectionRef = {
  id: string
  entityId?: string | null
  institutionId?: string | null
  institutionName: string | null
  portalUrl: string | null
  /** The bank-side delegated user who signs in to the portal (from the setup instructions), when known. */
  delegatedUser?: { name?: string | null; username?: string | null; email?: string | null } | null
}

export type TransferRef = {
  id: string
  clientReference?: string | null
  amount?: { value: string; currency: string } | null
  sourceAccountId?: string | null
  destinationAccountId?: string | null
  /** The portal of the source account's connection, where approvals happen. */
  portalUrl?: string | null
}

/** A webhook delivery bankrec could not interpret: its id and the type it claimed, never its body. */
export type EventRef = { id: string; type: string | null }

export type NoticeSubject = { connection: ConnectionRef } | { transfer: TransferRef } | { event: EventRef }

/** One message to operations, ready for any sink. */
export type AlertNotice = {
  /** Stable across replays; sinks' receivers may deduplicate by it. */
  id: string
  type: NoticeType
  severity: AlertSeverity
  /** The severity used to choose sinks: a reminder and a recovery go where their alert went. */
  routeSeverity: AlertSeverity
  /** The incident kind (reauthRequired, staleSync, pending_bank_approval, …) or the info kind. */
  kind: string
  incidentId: string | null
  subject: NoticeSubject
  title: string
  text: string
  /** What to do; null when nothing is needed. */
  action: string | null
  fields: { label: string; value: string }[]
  occurredAt: string
}

/** "3 d 4 h", "2 h 5 min", "45 min", "30 s". */
export function formatDuration(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000))
  const days = Math.floor(total / 86_400)
  const hours = Math.floor((total % 86_400) / 3600)
  const minutes = Math.floor((total % 3600) / 60)
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`
  if (minutes > 0) return `${minutes} min`
  return `${total} s`
}

/** "2026-03-02 09:00 UTC" */
export function formatTime(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

export function between(from: string, to: string): string {
  return formatDuration(Date.parse(to) - Date.parse(from))
}
