import { z } from 'zod'
import { HttpsUrl, IsoDateTime, Metadata, PageParams, listResponse, type ListResponse } from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages } from './pagination.js'
import { pathSegment, validateParams } from './validate-params.js'

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
export type WebhookListParams = z.input<typeof WebhookListParams>

/** Answer of POST /v1/webhooks/{id}/test (202): the queued test event. */
export const WebhookTestResult = z.looseObject({ eventId: z.string(), webhookId: z.string() })
export type WebhookTestResult = z.infer<typeof WebhookTestResult>

const WebhookList = listResponse(WebhookRegistration)

/** For a sandbox started with --allow-http-webhooks: http:// on a loopback host, as the sandbox accepts. */
const HttpsOrLoopbackUrl = z
  .string()
  .max(2048)
  .refine(
    (value) =>
      HttpsUrl.safeParse(value).success ||
      (/^http:\/\/.+/.test(value) &&
        URL.canParse(value) &&
        ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(value).hostname)),
    'must be an https:// URL, or http:// on 127.0.0.1, localhost or [::1]',
  )

/** webhooks.create/list/get/update/delete/test, plus listAll and listPages. */
export function createWebhooksResource(http: HttpClient, deps: { allowHttpLoopbackUrls: boolean }) {
  const createParams = deps.allowHttpLoopbackUrls
    ? WebhookCreateParams.extend({ url: HttpsOrLoopbackUrl })
    : WebhookCreateParams
  const updateParams = deps.allowHttpLoopbackUrls
    ? WebhookUpdateParams.extend({ url: HttpsOrLoopbackUrl.optional() })
    : WebhookUpdateParams
  const path = (webhookId: string, tail = '') => `/v1/webhooks/${pathSegment('webhookId', webhookId)}${tail}`

  /** GET /v1/webhooks: one page of registrations; secrets come back masked. */
  async function list(
    params: WebhookListParams = {},
    options?: CallOptions,
  ): Promise<ListResponse<WebhookRegistration>> {
    const query = validateParams(WebhookListParams, params)
    return http.request({ method: 'GET', path: '/v1/webhooks', query, schema: WebhookList, options })
  }

  return {
    /** POST /v1/webhooks: the answer carries the full secret, the only time it is shown. Not retried. */
    async create(params: WebhookCreateParams, options?: CallOptions): Promise<WebhookRegistration> {
      const body = validateParams(createParams, params)
      return http.request({
        method: 'POST',
        path: '/v1/webhooks',
        body,
        schema: WebhookRegistration,
        options,
      })
    },
    list,
    listAll: (params: WebhookListParams = {}, options?: CallOptions) => listAll(list, params, options),
    listPages: (params: WebhookListParams = {}, options?: CallOptions) => listPages(list, params, options),
    /** GET /v1/webhooks/{webhookId} */
    async get(webhookId: string, options?: CallOptions): Promise<WebhookRegistration> {
      return http.request({ method: 'GET', path: path(webhookId), schema: WebhookRegistration, options })
    },
    /** PATCH /v1/webhooks/{webhookId}: omitted fields stay unchanged, metadata null clears it. Not retried. */
    async update(
      webhookId: string,
      params: WebhookUpdateParams,
      options?: CallOptions,
    ): Promise<WebhookRegistration> {
      const body = validateParams(updateParams, params)
      return http.request({
        method: 'PATCH',
        path: path(webhookId),
        body,
        schema: WebhookRegistration,
        options,
      })
    },
    /** DELETE /v1/webhooks/{webhookId} */
    async delete(webhookId: string, options?: CallOptions): Promise<void> {
      await http.request({
        method: 'DELETE',
        path: path(webhookId),
        schema: undefined,
        notFoundAfterRetryIsSuccess: true,
        options,
      })
    },
    /** POST /v1/webhooks/{webhookId}/test: queues a `test` event to this registration. Not retried. */
    async test(webhookId: string, options?: CallOptions): Promise<WebhookTestResult> {
      return http.request({
        method: 'POST',
        path: path(webhookId, '/test'),
        schema: WebhookTestResult,
        options,
      })
    },
  }
}
export type WebhooksResource = ReturnType<typeof createWebhooksResource>
