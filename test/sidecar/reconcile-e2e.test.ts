import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAppEndpoint, type AppDelivery, type AppEndpoint } from '../app-events/app-endpoint.js'
import { API_TOKEN, sampleValue, startTestSidecar } from './sidecar-fixture.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'

const APP_SECRET = 'app_secret_reconcile_e2e_0123'
let app: AppEndpoint
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>

beforeAll(async () => {
  app = await startAppEndpoint(APP_SECRET)
  sidecar = await startTestSidecar('recon_e2e', ['receiver', 'worker', 'api'], {
    APP_WEBHOOK_URL: app.url,
    APP_WEBHOOK_SECRET: APP_SECRET,
  })
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
  await app?.close()
})

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** The bank reports a payment: the control API, then the sync_available webhook it triggers. */
async function bankPays(connectionId: string, body: Record<string, unknown>): Promise<string> {
  const sandbox = sidecar.context.bank.sandbox!
  const response = await fetch(`${sandbox.url}/_sandbox/connections/${connectionId}/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(201)
  const created = (await response.json()) as { id: string }
  await sandbox.advance(5)
  await sandbox.flushWebhooks()
  return created.id
}

async function delivered(type: string, invoiceId: string): Promise<AppDelivery> {
  let found: AppDelivery | undefined
  await vi.waitFor(
    () => {
      found = [...app.processed.values()].find(
        (event) => event.type === type && event.data.invoiceId === invoiceId,
      )
      expect(found).toBeDefined()
    },
    { timeout: 30_000, interval: 100 },
  )
  return found!
}

describe('webhook → sync → match → app event', () => {
  it('delivers invoice.paid, signed, once sandbox payments with mangled references cover an invoice', async () => {
    const { client } = sidecar.context.bank
    const connection = await onboardSandboxConnection(sidecar.context.bank)
    const accounts = await client.accounts.list({ connectionId: connection.id })
    const currency = accounts.data[0]!.currency

    for (const [id, number, amount] of [
      ['inv-1001', 'INV-1001', '100.00'],
      ['inv-1002', 'INV-1002', '50.00'],
    ] as const) {
      const put = await api('PUT', `/invoices/${id}`, { number, amount, currency, customerName: 'Acme Ltd' })
      expect(put.status, JSON.stringify(put.body)).toBeLessThan(300)
    }

    const first = await bankPays(connection.id, {
      amount: '40.00',
      paymentReference: 'inv 1001',
      counterpartyName: 'Acme',
    })
    const partial = await delivered('invoice.partially_paid', 'inv-1001')
    expect(partial).toMatchObject({ verified: true, data: { status: 'partially_paid', amountPaid: '40' } })

    const second = await bankPays(connection.id, { amount: '60.00', paymentReference: 'INV-0001001' })
    const paid = await delivered('invoice.paid', 'inv-1001')
    expect(paid.verified).toBe(true)
    expect(paid.data).toMatchObject({ status: 'paid', amountPaid: '100', amountOpen: '0' })
    expect(paid.data.allocations.map((allocation: any) => allocation.transactionId).sort()).toEqual(
      [first, second].sort(),
    )

    await bankPays(connection.id, { amount: '50.00', description: 'Payment for Inv-1002, thank you' })
    expect((await delivered('invoice.paid', 'inv-1002')).verified).toBe(true)

    const allocations = await api('GET', '/allocations?invoiceId=inv-1001')
    expect(allocations.status).toBe(200)
    expect(allocations.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    expect(allocations.body.data.map((allocation: any) => allocation.matchedReference).sort()).toEqual([
      'INV-0001001',
      'inv 1001',
    ])

    const report = await api('GET', '/report')
    expect(report.status).toBe(200)
    expect(report.body.matched.count).toBeGreaterThanOrEqual(3)

    const exceptions = await api('GET', '/exceptions?type=unmatched_payment')
    expect(exceptions.status).toBe(200)
    expect(Array.isArray(exceptions.body.data)).toBe(true)
    for (const exception of exceptions.body.data) expect(exception.type).toBe('unmatched_payment')
    // Each event reached the app once, whatever reruns of matching happened.
    const ids = app.deliveries.filter((delivery) => delivery.verified).map((delivery) => delivery.id)
    expect(ids.length).toBe(new Set(ids).size)

    const metrics = await (await fetch(`${sidecar.url}/metrics`)).text()
    const rate = sampleValue(metrics, 'bankrec_match_rate')
    expect(rate).toBeGreaterThan(0)
    expect(rate).toBeLessThanOrEqual(1)
  }, 90_000)

  it('lets a person accept a suggestion, match and unmatch over the API', async () => {
    const { client } = sidecar.context.bank
    const connection = await onboardSandboxConnection(sidecar.context.bank)
    const currency = (await client.accounts.list({ connectionId: connection.id })).data[0]!.currency
    await api('PUT', '/invoices/g-1', {
      number: 'G-77',
      amount: '321.00',
      currency,
      customerName: 'Globex GmbH',
    })
    await api('PUT', '/invoices/g-2', { number: 'G-78', amount: '99.00', currency, customerName: 'Initech' })

    const suggestedTx = await bankPays(connection.id, {
      amount: '321.00',
      counterpartyName: 'GLOBEX',
      description: 'x',
    })
    let key = ''
    await vi.waitFor(
      async () => {
        const list = await api('GET', `/exceptions?type=suggested_match&transactionId=${suggestedTx}`)
        expect(list.body.data).toHaveLength(1)
        key = list.body.data[0].key
        expect(list.body.data[0]).toMatchObject({ transactionId: suggestedTx, invoiceIds: ['g-1'] })
      },
      { timeout: 30_000, interval: 100 },
    )
    const accepted = await api('POST', `/exceptions/${encodeURIComponent(key)}/accept`)
    expect(accepted.status).toBe(200)
    expect(accepted.body).toMatchObject({ resolution: 'manual_match' })
    expect((await api('POST', `/exceptions/${encodeURIComponent(key)}/accept`)).status).toBe(409)

    const loose = await bankPays(connection.id, { amount: '20.00', description: 'no reference at all' })
    await vi.waitFor(
      async () => expect((await api('GET', `/exceptions?transactionId=${loose}`)).body.data).toHaveLength(1),
      { timeout: 30_000, interval: 100 },
    )
    expect((await api('POST', '/allocations', { transactionId: loose })).status).toBe(400)
    const made = await api('POST', '/allocations', { transactionId: loose, invoiceId: 'g-2' })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    expect(made.body).toMatchObject({ invoiceId: 'g-2', amount: '20', madeBy: 'person', rule: 'manual' })
    expect((await api('GET', `/exceptions?transactionId=${loose}`)).body.data).toEqual([])

    const removed = await api('DELETE', `/allocations/${made.body.id}`)
    expect(removed.status).toBe(200)
    expect(removed.body).toMatchObject({ reversalReason: 'unmatched_by_person' })
    expect((await api('DELETE', `/allocations/${made.body.id}`)).status).toBe(409)
    expect((await api('GET', `/allocations?transactionId=${loose}`)).body.data).toEqual([])
  }, 90_000)
})
