import type { EventEnvelope, SyncEvent } from '../api-client/index.js'

/**
 * The wire dialects the sandbox can speak. The seed leaves the delivery envelope, the sync event's kind field and
 * the shape of a removed event open, so a real service may differ from our reading in any of them; each dialect is
 * one plausible variant (docs/sandbox.md, "Dialects"), for proving bankrec converges whatever the service sends.
 */
export const SANDBOX_DIALECTS = [
  'seed',
  'kind-synonyms',
  'shouting',
  'nested-connection',
  'event-id',
] as const
export type SandboxDialect = (typeof SANDBOX_DIALECTS)[number]

type SyncKind = SyncEvent['type']
type Dialect = {
  /** A sync event, from the seed dialect's shape. */
  syncEvent(event: SyncEvent): Record<string, unknown>
  /** A webhook delivery's body, from the seed dialect's envelope. */
  envelope(event: EventEnvelope): Record<string, unknown>
}

const SYNONYMS: Record<SyncKind, string> = { added: 'created', modified: 'updated', removed: 'deleted' }

const asSeed = (event: EventEnvelope): Record<string, unknown> => ({ ...event })

/** The envelope's data with its connection id nested and entityId left out (the receiver must look it up). */
function nestConnection(data: Record<string, unknown>): Record<string, unknown> {
  const { connectionId, entityId: _entityId, ...rest } = data
  return connectionId === undefined ? rest : { ...rest, connection: { id: connectionId } }
}

const DIALECTS: Record<SandboxDialect, Dialect> = {
  // Today's reading of the seed: kind under `type`, removed embeds the identifiers; envelope id/type/createdAt/data.
  // The sync event is built afresh for each answer, so it goes out as it is (no copy per event of a page).
  seed: { syncEvent: (event) => event, envelope: asSeed },
  // Kind under `kind`, lowercase synonyms, removed as a bare `id`.
  'kind-synonyms': {
    syncEvent: ({ type, transaction, ...rest }) =>
      type === 'removed'
        ? { ...rest, kind: SYNONYMS[type], id: transaction.id }
        : { ...rest, kind: SYNONYMS[type], transaction },
    envelope: asSeed,
  },
  // Kind under `changeType`, UPPERCASE, removed as a transaction with only its id.
  shouting: {
    syncEvent: ({ type, transaction, ...rest }) => ({
      ...rest,
      changeType: SYNONYMS[type].toUpperCase(),
      transaction: type === 'removed' ? { id: transaction.id } : transaction,
    }),
    envelope: asSeed,
  },
  // Webhook data nests the connection (data.connection.id) with no entityId; sync kind under `action`.
  'nested-connection': {
    syncEvent: ({ type, ...rest }) => ({ ...rest, action: type }),
    envelope: (event) => ({ ...event, data: nestConnection(event.data) }),
  },
  // The envelope's id is `eventId` and it has no createdAt; sync kind under `eventType`, removed as transactionId.
  'event-id': {
    syncEvent: ({ type, transaction, ...rest }) =>
      type === 'removed'
        ? { ...rest, eventType: type, transactionId: transaction.id }
        : { ...rest, eventType: type, transaction },
    envelope: ({ id, createdAt: _createdAt, ...rest }) => ({ eventId: id, ...rest }),
  },
}

export function isSandboxDialect(name: string): name is SandboxDialect {
  return (SANDBOX_DIALECTS as readonly string[]).includes(name)
}

/** How a dialect writes sync events and webhook envelopes. */
export function dialectOf(name: SandboxDialect): Dialect {
  return DIALECTS[name]
}
