import { Router } from 'express'
import { sql } from 'kysely'
import type { Counter } from 'prom-client'
import { handle } from '../api-error.js'
import { queueStats } from '../queue-stats.js'
import type { SidecarContext } from '../context.js'
import { syncLags } from '../sync-lag.js'

const RECENT_EVENTS = 20

/**
 * GET /api/overview: what the dashboard shows besides connections: queue depth and age, sync lag, the deliveries
 * this process answered (by outcome and reason, since it started) and the latest processed events.
 */
export function overviewRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/overview',
    handle(async (_req, res) => {
      const [queues, lags, deliveries, recent] = await Promise.all([
        Promise.all(
          context.queues.map((queue) =>
            queueStats(queue, Date.now()).catch((error: Error) => ({
              name: queue.name,
              error: error.message,
            })),
          ),
        ),
        syncLags(context.store.db, context.clock.now()),
        deliveryCounts(context),
        context.store.db
          .selectFrom('processed_events')
          // processed_at is typed Generated<Timestamp>, which Kysely does not unwrap to Date on select.
          .select(['event_id', 'type', 'outcome', sql<Date>`processed_at`.as('processed_at')])
          .orderBy('processed_at', 'desc')
          .limit(RECENT_EVENTS)
          .execute(),
      ])
      res.json({
        data: {
          mode: context.bank.sandbox ? 'sandbox' : 'bank',
          queues,
          syncLag: lags.map((lag) => ({ ...lag, lastSuccessAt: lag.lastSuccessAt?.toISOString() ?? null })),
          deliveries,
          recentEvents: recent.map((row) => ({
            eventId: row.event_id,
            type: row.type,
            outcome: row.outcome,
            processedAt: row.processed_at.toISOString(),
          })),
        },
      })
    }),
  )
  return router
}

async function deliveryCounts(context: SidecarContext) {
  const counter = context.metrics.registry.getSingleMetric('bankrec_receiver_deliveries_total') as
    Counter<'outcome' | 'reason'> | undefined
  if (!counter) return []
  const { values } = await counter.get()
  return values
    .map((v) => ({ outcome: String(v.labels.outcome), reason: String(v.labels.reason), count: v.value }))
    .sort((a, b) => b.count - a.count)
}
