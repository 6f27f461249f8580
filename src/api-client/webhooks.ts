import { z } from 'zod'
import { HttpsUrl, IsoDateTime, Metadata, PageParams } from './common.js'

export const WebhookEventType = z.enum([
  'connection.status_changed',
  'transactions.sync_available',
  'test',
  'account.created',
  'account.updated',
  'transfer.status_changed',
])
export type WebhookEventType = z.infer<typeof WebhookEventType>

export const WebhookRegistration = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEventType),
  secret: z.string(),
  active: z.boolean(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  metadata: Metadata.optional(),
})
export type WebhookRegistration = z.infer<typeof WebhookRegistration>

/** The sandbox's --allow-http-webhooks relaxes HttpsUrl to loopback http:// URLs; the contract stays HTTPS. */
export const WebhookCreateParams = z.object({
  url: HttpsUrl,
  events: z.array(WebhookEventType).min(1),
  active: z.boolean().optional(),
  metadata: Metadata.optional(),
})
export type WebhookCreateParams = z.input<typeof WebhookCreateParams>

/** Seed: every field optional, an omitted field is left unchanged, metadata null clears it. */
export const WebhookUpdateParams = z.object({
  url: HttpsUrl.optional(),
  events: z.array(WebhookEventType).min(1).optional(),
  active: z.boolean().optional(),
  metadata: Metadata.nullable().optional(),
})
export type WebhookUpdateParams = z.input<typeof WebhookUpdateParams>

export const WebhookListParams = PageParams
