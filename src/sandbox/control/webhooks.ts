import { Router } from 'express'
import { z } from 'zod'
import { WebhookEventType } from '../../api-client/index.js'
import { parseInput } from '../api-error.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'
import type { DeliveryRecord } from '../state.js'

const DeliveryStatus = z.enum(['pending', 'delivered', 'failed', 'dropped'])

const DeliveryQuery = z.object({
  webhookId: z.string().optional(),
  eventId: z.string().optional(),
  type: WebhookEventType.optional(),
  status: DeliveryStatus.optional(),
})

function countByStatus(deliveries: readonly DeliveryRecord[]) {
  const counts = { pending: 0, delivered: 0, failed: 0, dropped: 0 }
  for (const delivery of deliveries) counts[delivery.status]++
  return counts
}

/** Delivery inspection and flush. The body and the registration's secret are never shown. */
function presentDelivery(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.eventType,
    webhookId: delivery.webhookId,
    attempts: delivery.attempts,
    status: delivery.status,
    lastStatusCode: delivery.lastStatusCode,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
  }
}

export function webhookControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.post(
    '/webhooks/flush',
    route(async (_req, res) => {
      const attemptsBefore = runtime.ctx.state.deliveries.reduce((sum, d) => sum + d.attempts, 0)
      await runtime.flushWebhooks()
      const { deliveries } = runtime.ctx.state
      res.json({
        attempted: deliveries.reduce((sum, d) => sum + d.attempts, 0) - attemptsBefore,
        ...countByStatus(deliveries),
      })
    }),
  )
  router.get(
    '/webhooks/deliveries',
    route((req, res) => {
      const query = parseInput(DeliveryQuery, req.query, 'query')
      const data = runtime.ctx.state.deliveries
        .filter(
          (d) =>
            (query.webhookId === undefined || d.webhookId === query.webhookId) &&
            (query.eventId === undefined || d.eventId === query.eventId) &&
            (query.type === undefined || d.eventType === query.type) &&
            (query.status === undefined || d.status === query.status),
        )
        .map(presentDelivery)
      res.json({ data })
    }),
  )
  return router
}
