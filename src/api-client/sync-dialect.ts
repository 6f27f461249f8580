import { z } from 'zod'
import { asIsCheck } from './as-is-check.js'
import { DecimalString, IsoDate, IsoDateTime, Uuid } from './common.js'

// The sync stream's wire format: the transaction every event carries (also what list and get return) and the
// dialects the events themselves may come in.

export const TransactionStatus = z.enum(['pending', 'posted', 'reversed', 'cancelled', 'unknown'])
export type TransactionStatus = z.infer<typeof TransactionStatus>
export const EntryType = z.enum(['credit', 'debit'])
export const Rail = z.enum([
  'internalTransfer',
  'card',
  'ach',
  'sepaCredit',
  'sepaDebit',
  'bacsDirectDebit',
  'wire',
  'swift',
  'fasterPayments',
  'check',
  'cash',
  'crypto',
  'other',
  'unknown',
])
export type Rail = z.infer<typeof Rail>

/** The identifiers every transaction carries, whatever the fieldset. */
export const TRANSACTION_IDENTIFIERS = ['id', 'connectionId', 'accountId'] as const

const text = z.string().nullable().optional()

/** The seed does not say which fields are required: identifiers are, the rest may be absent or null. */
export const Transaction = z.looseObject({
  id: Uuid,
  connectionId: Uuid,
  accountId: Uuid,
  postedDate: IsoDate.nullable().optional(),
  updatedAt: IsoDateTime.optional(),
  amount: DecimalString.optional(),
  currency: z.string().optional(),
  description: text,
  rawDescription: text,
  customerReference: text,
  bankReference: text,
  paymentReference: text,
  baiCode: text,
  category: text,
  subcategory: text,
  mcc: text,
  merchantName: text,
  counterpartyName: text,
  counterpartyAccountMasked: text,
  status: TransactionStatus.optional(),
  entryType: EntryType.optional(),
  rail: Rail.optional(),
})
export type Transaction = z.infer<typeof Transaction>

/** A transaction zod would return unchanged is taken as it came, without zod's copy; any other is zod's to read. */
const transactionAsIs = asIsCheck(Transaction)

// ── sync events, in any dialect ─────────────────────────────────────────────────────────────────────────────────

/** The kinds of sync event (seed, sync rule 3); the field that names them is open (below). */
export const SyncEventType = z.enum(['added', 'modified', 'removed'])
export type SyncEventType = z.infer<typeof SyncEventType>

/**
 * The fields a sync event may name its kind under. The seed leaves the field's name and the shape of a removed
 * event open ("not shown"), so the reader accepts every plausible spelling instead of halting a connection on the
 * first page that differs from our guess.
 */
export const SYNC_KIND_FIELDS = ['type', 'kind', 'eventType', 'event', 'changeType', 'action'] as const
export type SyncKindField = (typeof SYNC_KIND_FIELDS)[number]

/** Kind values, compared case-insensitively, and the seed's kind each one means. */
const KIND_SYNONYMS: Readonly<Record<string, SyncEventType>> = {
  added: 'added',
  created: 'added',
  modified: 'modified',
  updated: 'modified',
  removed: 'removed',
  deleted: 'removed',
}

/** How a removed event names its transaction. */
export type RemovedShape = 'embedded transaction' | 'transaction with only id' | 'bare id'

/** What a stream was found to speak: logged once per stream. */
export type SyncDialect = {
  kindField: SyncKindField
  /** How the kind values are written. */
  casing: 'lowercase' | 'uppercase' | 'mixed'
  /** The shape of the first removed event seen; null when none was. */
  removed: RemovedShape | null
}

/** A removed transaction: its id for certain, whatever else the event carried. */
export type RemovedTransaction = Partial<Transaction> & { id: string }

/** One sync event, read from whichever dialect it came in, as the seed's sync rule 3 names it. */
export type SyncChange =
  | {
      eventId: string | null
      eventAt: string | null
      type: Exclude<SyncEventType, 'removed'>
      transaction: Transaction
    }
  | { eventId: string | null; eventAt: string | null; type: 'removed'; transaction: RemovedTransaction }

/** Why an event could not be read; one exception and one alert per kind. */
export const SYNC_EVENT_PROBLEMS = [
  'not_an_object',
  'no_kind',
  'unknown_kind',
  'no_transaction',
  'invalid_transaction',
] as const
export type SyncEventProblem = (typeof SYNC_EVENT_PROBLEMS)[number]

export type UnreadableSyncEvent = {
  /** The event as it came, for the quarantine. */
  raw: unknown
  problem: SyncEventProblem
  /** What was wrong, naming the field; never the event's values beyond the kind. */
  detail: string
  eventId: string | null
  /** The transaction the event names, when an id can be found: a later sync re-reads it from the bank. */
  transactionId: string | null
}

export type SyncEventReading = { ok: true; change: SyncChange } | ({ ok: false } & UnreadableSyncEvent)

type Kind = { field: SyncKindField; value: string; type: SyncEventType }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null)

/** SYNC_KIND_FIELDS with each one first, once rather than per event. */
const KIND_FIELDS_PREFERRING = new Map<SyncKindField, readonly SyncKindField[]>(
  SYNC_KIND_FIELDS.map((field) => [field, [field, ...SYNC_KIND_FIELDS.filter((f) => f !== field)]]),
)

/** The first field (the dialect's own first) whose value is a known kind. */
function findKind(event: Record<string, unknown>, preferred: SyncKindField | undefined): Kind | undefined {
  const fields = (preferred && KIND_FIELDS_PREFERRING.get(preferred)) || SYNC_KIND_FIELDS
  for (const field of fields) {
    const value = event[field]
    if (typeof value !== 'string') continue
    const type = KIND_SYNONYMS[value.toLowerCase()]
    if (type) return { field, value, type }
  }
  return undefined
}

/** The id a removed (or unreadable) event names: transaction.id, transaction as a string, transactionId or id. */
function namedTransactionId(event: Record<string, unknown>): {
  id: string | null
  shape: RemovedShape | null
} {
  const { transaction } = event
  if (isRecord(transaction) && typeof transaction.id === 'string') {
    const others = Object.keys(transaction).filter((key) => key !== 'id')
    return {
      id: transaction.id,
      shape: others.length > 0 ? 'embedded transaction' : 'transaction with only id',
    }
  }
  if (typeof transaction === 'string') return { id: transaction, shape: 'bare id' }
  const bare = optionalString(event.transactionId) ?? optionalString(event.id)
  return { id: bare, shape: bare === null ? null : 'bare id' }
}

/**
 * Reads one sync event in any dialect: the kind under any of SYNC_KIND_FIELDS (case-insensitive, with synonyms),
 * a removed event as an embedded transaction, a transaction with only its id, or a bare transactionId / id.
 */
export function readSyncEvent(raw: unknown, dialect?: SyncDialect | null): SyncEventReading {
  if (!isRecord(raw)) {
    const detail = `a sync event must be a JSON object, got ${Array.isArray(raw) ? 'an array' : typeof raw}`
    return { ok: false, raw, problem: 'not_an_object', detail, eventId: null, transactionId: null }
  }
  const eventId = optionalString(raw.eventId)
  const eventAt = optionalString(raw.eventAt)
  const kind = findKind(raw, dialect?.kindField)
  if (!kind) {
    const present = SYNC_KIND_FIELDS.filter((field) => field in raw)
    return present.length === 0
      ? unreadableEvent(raw, eventId, 'no_kind', `no kind field (looked for ${SYNC_KIND_FIELDS.join(', ')})`)
      : unreadableEvent(
          raw,
          eventId,
          'unknown_kind',
          `${present.map((f) => `${f}=${JSON.stringify(raw[f])?.slice(0, 40)}`).join(', ')} is not added, modified or removed (or a synonym)`,
        )
  }
  if (kind.type === 'removed') {
    const id = namedTransactionId(raw).id
    if (id === null)
      return unreadableEvent(raw, eventId, 'no_transaction', 'a removed event names no transaction id')
    if (!Uuid.safeParse(id).success)
      return unreadableEvent(raw, eventId, 'invalid_transaction', 'the removed transaction id is not a UUID')
    const embedded = isRecord(raw.transaction) ? raw.transaction : {}
    return {
      ok: true,
      change: {
        eventId,
        eventAt,
        type: 'removed',
        transaction: { ...(embedded as Partial<Transaction>), id },
      },
    }
  }
  if (!isRecord(raw.transaction))
    return unreadableEvent(
      raw,
      eventId,
      'no_transaction',
      `an ${kind.type} event carries no transaction object`,
    )
  const parsed = transactionAsIs?.(raw.transaction)
    ? { success: true as const, data: raw.transaction as Transaction }
    : Transaction.safeParse(raw.transaction)
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)'))]
    return unreadableEvent(
      raw,
      eventId,
      'invalid_transaction',
      `transaction fields not readable: ${fields.join(', ')}`,
    )
  }
  return { ok: true, change: { eventId, eventAt, type: kind.type, transaction: parsed.data } }
}

/** An event that fits no dialect, with the transaction id it names (only such events need it looked up). */
function unreadableEvent(
  raw: Record<string, unknown>,
  eventId: string | null,
  problem: SyncEventProblem,
  detail: string,
): SyncEventReading {
  const id = namedTransactionId(raw).id
  return {
    ok: false,
    raw,
    problem,
    detail,
    eventId,
    transactionId: id !== null && Uuid.safeParse(id).success ? id : null,
  }
}

/** The dialect of a page: the kind field and casing of its first readable event, and its removed shape. */
export function detectSyncDialect(events: readonly unknown[]): SyncDialect | null {
  let found: { kind: Kind; casing: SyncDialect['casing'] } | undefined
  let removed: RemovedShape | null = null
  for (const event of events) {
    if (!isRecord(event)) continue
    const kind = findKind(event, found?.kind.field)
    if (!kind) continue
    found ??= { kind, casing: casingOf(kind.value) }
    if (kind.type === 'removed' && removed === null) removed = namedTransactionId(event).shape
    if (removed !== null) break
  }
  return found ? { kindField: found.kind.field, casing: found.casing, removed } : null
}

function casingOf(value: string): SyncDialect['casing'] {
  if (value === value.toLowerCase()) return 'lowercase'
  if (value === value.toUpperCase()) return 'uppercase'
  return 'mixed'
}

/** A page's events read: the changes in stream order, and those that fit no dialect (to quarantine). */
export function readSyncEvents(
  events: readonly unknown[],
  dialect: SyncDialect | null = detectSyncDialect(events),
): { dialect: SyncDialect | null; changes: SyncChange[]; unreadable: UnreadableSyncEvent[] } {
  const changes: SyncChange[] = []
  const unreadable: UnreadableSyncEvent[] = []
  for (const raw of events) {
    const reading = readSyncEvent(raw, dialect)
    if (reading.ok) changes.push(reading.change)
    else {
      const { ok: _ok, ...problem } = reading
      unreadable.push(problem)
    }
  }
  return { dialect, changes, unreadable }
}

/** 'kind under "kind", lowercase, removed as bare id': what a log line and the stream's record say. */
export function describeSyncDialect(dialect: SyncDialect): string {
  return `kind under "${dialect.kindField}", ${dialect.casing}, removed as ${dialect.removed ?? '(none seen yet)'}`
}
