import { vi } from 'vitest'
import type { Logger } from '../../src/observability/index.js'
import { isRefreshJobId, type QueueBackendConfig } from '../../src/queue/index.js'
import { startAppEndpoint, type AppEndpoint } from '../app-events/app-endpoint.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { onboardSandboxConnection } from './onboard-sandbox-connection.js'
import { dropSidecarSchemas } from './test-database.js'

const APP_SECRET = 'app_secret_one_paid_delivery_01'

export type IdlePipeline = {
  sidecar: Awaited<ReturnType<typeof startTestSidecar>>
  app: AppEndpoint
  backend: QueueBackendConfig
  /** Rows of the app-event outbox: every one recorded, and whether it was delivered. */
  appEvents(): Promise<{ id: string; delivered: boolean }[]>
  /**
   * The bank books a payment of the open invoice and sends one signed `transactions.sync_available`; resolves once
   * the app has the invoice's `invoice.paid`.
   */
  payAndAwaitInvoicePaid(): Promise<void>
  close(): Promise<void>
}

/**
 * A sidecar with every role on one queue backend, the sandbox bank, one connection and one open invoice, its
 * onboarding done: no job waiting or running, every app event delivered. What happens next is one event's path.
 */
export async function startIdlePipeline(
  label: string,
  kind: QueueBackendConfig['kind'],
  options: { logger?: Logger } = {},
): Promise<IdlePipeline> {
  const app = await startAppEndpoint(APP_SECRET)
  const sidecar = await startTestSidecar(
    label,
    ['receiver', 'worker', 'api'],
    {
      APP_WEBHOOK_URL: app.url,
      APP_WEBHOOK_SECRET: APP_SECRET,
      // Empty counts as unset: the queues live in PostgreSQL.
      ...(kind === 'postgres' ? { REDIS_URL: '' } : {}),
      // No schedule fires while the one event runs: what runs is that event's work.
      TRANSFER_SCAN_SECONDS: '3600',
      ALERT_TICK_SECONDS: '3600',
      APP_EVENTS_RESCAN_SECONDS: '86400',
    },
    options,
  )
  const close = async () => {
    await sidecar.close()
    await dropSidecarSchemas(sidecar.schema)
    await app.close()
  }
  try {
    const { backend, bank } = sidecar.context
    if (backend.kind !== kind) throw new Error(`the sidecar runs its queues on ${backend.kind}, not ${kind}`)
    const connection = await onboardSandboxConnection(bank)
    const currency = (await bank.client.accounts.list({ connectionId: connection.id })).data[0]!.currency
    const invoiceId = `${label}-1`
    const put = await fetch(`${sidecar.url}/api/invoices/${invoiceId}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: 'PATH-1', amount: '125.00', currency, customerName: 'Pathfinder Ltd' }),
    })
    if (put.status >= 300) throw new Error(`the invoice was not stored: ${put.status}`)
    const { db } = sidecar.context.store
    const appEvents = async () =>
      (await db.selectFrom('app_events').select(['id', 'delivered_at']).execute()).map((row) => ({
        id: row.id,
        delivered: row.delivered_at !== null,
      }))
    // The bank's own syncs add no payments of their own from here on, and what it has to say is said now: the
    // event's run carries only its payment.
    bank.sandbox!.ctx.settings.generatedActivity = false
    await bank.sandbox!.flushWebhooks()
    // The onboarding's syncs and owed re-reads, the matching of what they brought, the invoice's matching run and
    // their app events are done: the pipeline is idle.
    await vi.waitFor(
      async () => {
        for (const queue of sidecar.context.queues) {
          const counts = await queue.getJobCounts('waiting', 'active')
          if (counts.waiting! + counts.active! > 0) throw new Error(`${queue.name} is busy`)
          if ((await queue.getDelayed()).some((job) => isRefreshJobId(job.id)))
            throw new Error(`${queue.name} holds an owed re-read`)
        }
        const queued = await db.selectFrom('pending_matches').select('seq').limit(1).execute()
        if (queued.length > 0) throw new Error('changes wait for matching')
        if ((await appEvents()).some((event) => !event.delivered)) throw new Error('app events undelivered')
      },
      { timeout: 30_000, interval: 100 },
    )
    const payAndAwaitInvoicePaid = async () => {
      const paid = await fetch(`${bank.sandbox!.url}/_sandbox/connections/${connection.id}/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
        body: JSON.stringify({ amount: '125.00', paymentReference: 'PATH-1' }),
      })
      if (paid.status !== 201) throw new Error(`the sandbox did not book the payment: ${paid.status}`)
      await bank.sandbox!.advance(5)
      await bank.sandbox!.flushWebhooks()
      await vi.waitFor(
        () => {
          const told = [...app.processed.values()].some(
            (e) => e.type === 'invoice.paid' && e.data.invoiceId === invoiceId,
          )
          if (!told) throw new Error('invoice.paid has not reached the app')
        },
        { timeout: 30_000, interval: 50 },
      )
    }
    return { sidecar, app, backend, appEvents, payAndAwaitInvoicePaid, close }
  } catch (error) {
    await close()
    throw error
  }
}
