import { z } from 'zod'
import type { StoredAppEvent } from '../store/index.js'

/**
 * An event for the company's own app. The id is the caller's and must be stable for the fact it reports
 * (derived from it, never random at publish time), so a replayed effect never makes a second event.
 */
export const AppEventInput = z.object({
  id: z.string().min(1).max(255),
  type: z.string().regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/, 'must look like invoice.paid'),
  data: z.record(z.string(), z.unknown()),
  /** When the fact happened on bankrec's clock. @defaultValue the database's now() */
  createdAt: z.date().optional(),
})
export type AppEventInput = z.input<typeof AppEventInput>

/** What the app receives: the bank's envelope shape. */
export type AppEventEnvelope = {
  id: string
  type: string
  createdAt: string
  data: Record<string, unknown>
}

export function appEventEnvelope(event: StoredAppEvent): AppEventEnvelope {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data }
}
