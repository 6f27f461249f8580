import { randomBytes, randomUUID } from 'node:crypto'
import { Router, type Response } from 'express'
import { z } from 'zod'
import {
  WebhookCreateParams,
  WebhookListParams,
  WebhookUpdateParams,
  type WebhookRegistration,
} from '../../api-client/index.js'
import { ApiError, notFound, parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import type { SandboxContext } from '../context.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'
import type { WebhookRecord } from '../state.js'
import { buildEvent, queueDelivery } from '../webhook-dispatcher.js'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * The contract's HTTPS-only url, relaxed to http:// on a loopback host when the sandbox runs with
 * --allow-http-webhooks (tests and the demo receive on localhost without TLS).
 */
function webhookUrl(allowHttp: boolean) {
  const httpsOnly = allowHttp
    ? 'must be an https:// URL, or http:// on 127.0.0.1, localhost or [::1]'
    : 'must be an https:// URL (http:// on loopback needs the sandbox started with --allow-http-webhooks)'
  return z
    .string()
    .max(2048)
    .refine((value) => isHttps(value) || (allowHttp && isLoopbackHttp(value)), httpsOnly)
}

function isHttps(value: string): boolean {
  return /^https:\/\/.+/.test(value) && URL.canParse(value)
}

function isLoopbackHttp(value: string): boolean {
  if (!/^http:\/\/.+/.test(value) || !URL.canParse(value)) return false
  return LOOPBACK_HOSTS.has(new URL(value).hostname)
}

/** Secrets are shown in full only in the create response; later reads show the last four characters. */
export function maskSecret(secret: string): string {
  return `whsec_…${secret.slice(-4)}`
}

function present(record: WebhookRecord, secret: 'full' | 'masked'): WebhookRegistration {
  return {
    id: record.id,
    url: record.url,
    events: [...record.events],
    secret: secret === 'full' ? record.secret : maskSecret(record.secret),
    active: record.active,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    ...(record.metadata ? { metadata: record.metadata } : {}),
  }
}

function findOwn(ctx: SandboxContext, res: Response, id: string): WebhookRecord {
  const record = ctx.state.webhooks.get(id)
  // Another organization's registration is indistinguishable from a missing one.
  if (!record || record.orgId !== callerOf(res).orgId) throw notFound('webhook', id)
  return record
}

/** /v1/webhooks: registrations (create, list, get, update, delete) and the test event. */
export function webhookRoutes(ctx: SandboxContext): Router {
  const router = Router()
  const url = () => webhookUrl(ctx.settings.allowHttpWebhooks)

  router.post(
    '/webhooks',
    requireScope('webhooks:write'),
    route((req, res) => {
      const body = parseInput(WebhookCreateParams.extend({ url: url() }), req.body, 'body')
      const now = ctx.clock.now()
      const record: WebhookRecord = {
        id: `wh_${randomUUID()}`,
        orgId: callerOf(res).orgId,
        url: body.url,
        events: [...new Set(body.events)],
        secret: `whsec_${randomBytes(24).toString('base64url')}`,
        active: body.active ?? true,
        createdAt: now,
        updatedAt: now,
        metadata: body.metadata,
      }
      ctx.state.webhooks.set(record.id, record)
      res.status(201).location(`/v1/webhooks/${record.id}`).json(present(record, 'full'))
    }),
  )

  router.get(
    '/webhooks',
    requireScope('webhooks:read'),
    route((req, res) => {
      const query = parseInput(WebhookListParams, req.query, 'query')
      const orgId = callerOf(res).orgId
      // Newest first, as connections list; insertion order breaks ties between equal createdAt.
      const own = [...ctx.state.webhooks.values()].filter((w) => w.orgId === orgId).reverse()
      const page = paginate(own, query)
      res.json({
        data: page.data.map((w) => present(w, 'masked')),
        pagination: page.pagination,
        meta: metaOf(res),
      })
    }),
  )

  router.get(
    '/webhooks/:webhookId',
    requireScope('webhooks:read'),
    route((req, res) => {
      res.json(present(findOwn(ctx, res, String(req.params.webhookId)), 'masked'))
    }),
  )

  router.patch(
    '/webhooks/:webhookId',
    requireScope('webhooks:write'),
    route((req, res) => {
      const record = findOwn(ctx, res, String(req.params.webhookId))
      const body = parseInput(WebhookUpdateParams.extend({ url: url().optional() }), req.body ?? {}, 'body')
      // Seed: a field omitted from the PATCH body is left unchanged; metadata null clears it.
      if (body.url !== undefined) record.url = body.url
      if (body.events !== undefined) record.events = [...new Set(body.events)]
      if (body.active !== undefined) record.active = body.active
      if (body.metadata !== undefined) record.metadata = body.metadata ?? undefined
      record.updatedAt = ctx.clock.now()
      res.json(present(record, 'masked'))
    }),
  )

  router.delete(
    '/webhooks/:webhookId',
    requireScope('webhooks:write'),
    route((req, res) => {
      const record = findOwn(ctx, res, String(req.params.webhookId))
      ctx.state.webhooks.delete(record.id)
      res.status(204).end()
    }),
  )

  router.post(
    '/webhooks/:webhookId/test',
    requireScope('webhooks:write'),
    route((req, res) => {
      const record = findOwn(ctx, res, String(req.params.webhookId))
      if (!record.active) {
        throw new ApiError(
          409,
          'webhook_inactive',
          'The webhook registration is inactive; PATCH it with active: true to receive events.',
        )
      }
      // An explicit test goes to this registration only, whether or not it subscribes to `test`.
      const event = buildEvent(ctx, 'test', { webhookId: record.id })
      queueDelivery(ctx, record, event)
      res.status(202).json({ eventId: event.id, webhookId: record.id, meta: metaOf(res) })
    }),
  )

  return router
}
