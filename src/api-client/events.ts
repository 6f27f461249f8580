import { z } from 'zod'
import { IsoDateTime } from './common.js'
import { ConnectionStatus } from './connections.js'

/**
 * The delivery envelope (the seed leaves it open; docs/sandbox.md records it). `id` is the event id receivers
 * deduplicate by; `data` depends on `type`.
 */
export const EventEnvelope = z.looseObject({
  id: z.string().min(1).max(255),
  type: z.string().min(1),
  createdAt: IsoDateTime,
  apiVersion: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
})
export type EventEnvelope = z.infer<typeof EventEnvelope>

export const ConnectionStatusChangedData = z.looseObject({
  connectionId: z.string(),
  entityId: z.string(),
  previousStatus: ConnectionStatus.nullable(),
  status: ConnectionStatus,
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
})
export type ConnectionStatusChangedData = z.infer<typeof ConnectionStatusChangedData>

export const SyncAvailableData = z.looseObject({
  connectionId: z.string(),
  entityId: z.string(),
})
export type SyncAvailableData = z.infer<typeof SyncAvailableData>

export const TestEventData = z.looseObject({ webhookId: z.string() })

export const KnownEvent = z.discriminatedUnion('type', [
  EventEnvelope.extend({ type: z.literal('connection.status_changed'), data: ConnectionStatusChangedData }),
  EventEnvelope.extend({ type: z.literal('transactions.sync_available'), data: SyncAvailableData }),
  EventEnvelope.extend({ type: z.literal('test'), data: TestEventData }),
])
export type KnownEvent = z.infer<typeof KnownEvent>
