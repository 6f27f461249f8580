import { Redis } from 'ioredis'
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import {
  APP_EVENTS_QUEUE,
  CONNECTION_SYNC_QUEUE,
  MATCHING_QUEUE,
  WEBHOOK_EVENTS_QUEUE,
  type QueueBackendConfig,
} from '../../src/queue/index.js'
import { startAppEndpoint, type AppEndpoint } from '../app-events/app-endpoint.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { dropSidecarSchemas, TEST_DATABASE_URL } from '../support/test-database.js'

const APP_SECRET = 'app_secret_hop_count_0123456'
const PIPELINE_QUEUES = [WEBHOOK_EVENTS_QUEUE, CONNECTION_SYNC_QUEUE, MATCHING_QUEUE, APP_EVENTS_QUEUE]

/**
 * Jobs ever added to each queue, read from the queue's own event stream ('added'), leaving out the jobs of the
 * schedules (ids `repeat:…`). The stream is BullMQ's on both backends: a Redis stream, or the queue schema's
 * event table.
 */
async function jobsAdded(backend: QueueBackendConfig): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  if (backend.kind === 'redis') {
    const redis = new Redis(backend.url)
    try {
      for (const queue of PIPELINE_QUEUES) {
        const entries = await redis.xrange(`${backend.prefix}:${queue}:events`, '-', '+')
        counts[queue] = entries.filter(([, fields]) => {
          const event = Object.fromEntries(
            fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]])),
          )
          return event.event === 'added' && !String(event.jobId).startsWith('repeat:')
        }).length
      }
    } finally {
      redis.disconnect()
    }
    return counts
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    for (const queue of PIPELINE_QUEUES) {
      const { rows } = await client.query<{ n: string }>(
        `select count(*) as n from "${backend.schema}".event
          where queue = $1 and event = 'added' and data->>'jobId' not like 'repeat:%'`,
        [queue],
      )
      counts[queue] = Number(rows[0]!.n)
    }
  } finally {
    await client.end()
  }
  return counts
}

const hops = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(PIPELINE_QUEUES.map((queue) => [queue, after[queue]! - before[queue]!]))

describe.each(['redis', 'postgres'] as const)(
  'hops from sync_available to invoice.paid (%s queue)',
  (kind) => {
    let app: AppEndpoint
    let sidecar: Awaited<ReturnType<typeof startTestSidecar>>

    afterAll(async () => {
      await sidecar?.close()
      if (sidecar) await dropSidecarSchemas(sidecar.schema)
      await app?.close()
    })

    it('adds only the webhook event job when no lock is taken: sync, matching and the app events happen in place', async () => {
      app = await startAppEndpoint(APP_SECRET)
      sidecar = await startTestSidecar(`hops_${kind}`, ['receiver', 'worker', 'api'], {
        APP_WEBHOOK_URL: app.url,
        APP_WEBHOOK_SECRET: APP_SECRET,
        // Empty counts as unset: the queues live in PostgreSQL.
        ...(kind === 'postgres' ? { REDIS_URL: '' } : {}),
      })
      const { backend } = sidecar.context
      expect(backend.kind).toBe(kind)
      const bank = sidecar.context.bank
      const connection = await onboardSandboxConnection(bank)
      const currency = (await bank.client.accounts.list({ connectionId: connection.id })).data[0]!.currency
      const put = await fetch(`${sidecar.url}/api/invoices/hop-1`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ number: 'HOP-1', amount: '125.00', currency, customerName: 'Hopper Ltd' }),
      })
      expect(put.status).toBeLessThan(300)
      const { db } = sidecar.context.store
      const appEvents = async () =>
        (await db.selectFrom('app_events').select(['id', 'delivered_at']).execute()).map((row) => ({
          id: row.id,
          delivered: row.delivered_at !== null,
        }))
      // The onboarding's syncs, the invoice's matching run and their app events are done: the pipeline is idle.
      await vi.waitFor(
        async () => {
          for (const queue of sidecar.context.queues) {
            const counts = await queue.getJobCounts('waiting', 'active')
            expect(counts.waiting! + counts.active!, queue.name).toBe(0)
          }
          expect((await appEvents()).filter((event) => !event.delivered)).toEqual([])
        },
        { timeout: 30_000, interval: 100 },
      )
      const before = await jobsAdded(backend)
      const appEventsBefore = (await appEvents()).length

      const paid = await fetch(`${bank.sandbox!.url}/_sandbox/connections/${connection.id}/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
        body: JSON.stringify({ amount: '125.00', paymentReference: 'HOP-1' }),
      })
      expect(paid.status).toBe(201)
      await bank.sandbox!.advance(5)
      await bank.sandbox!.flushWebhooks()
      await vi.waitFor(
        () =>
          expect(
            [...app.processed.values()].some(
              (e) => e.type === 'invoice.paid' && e.data.invoiceId === 'hop-1',
            ),
          ).toBe(true),
        { timeout: 30_000, interval: 50 },
      )
      const told = (await appEvents()).length - appEventsBefore
      expect(told).toBeGreaterThanOrEqual(1)

      // One signed delivery, synced and matched by the worker that took it, its app events sent by the process
      // their NOTIFY reached: no sync job, no matching job, no app-event job.
      expect(hops(before, await jobsAdded(backend))).toEqual({
        [WEBHOOK_EVENTS_QUEUE]: 1,
        [CONNECTION_SYNC_QUEUE]: 0,
        [MATCHING_QUEUE]: 0,
        [APP_EVENTS_QUEUE]: 0,
      })
    }, 90_000)
  },
)
