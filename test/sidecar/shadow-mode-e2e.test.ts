import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let connectionId: string
let currency: string
const tokens: Record<string, string> = { admin: API_TOKEN }

async function api(
  method: string,
  path: string,
  body?: unknown,
  as: string = 'admin',
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sidecar.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** The bank books a payment and tells the sidecar (the sync_available webhook). */
async function bankPays(body: Record<string, unknown>): Promise<string> {
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

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
const report = () => api('GET', `/matching/trust-report?from=${day(-1)}&to=${day(1)}`, undefined, 'vera')

beforeAll(async () => {
  sidecar = await startTestSidecar('shadow_e2e', ['receiver', 'worker', 'api'], {
    MATCH_AUTO_APPLY: 'shadow',
  })
  const connection = await onboardSandboxConnection(sidecar.context.bank)
  connectionId = connection.id
  currency = (await sidecar.context.bank.client.accounts.list({ connectionId })).data[0]!.currency
  // Only this file's payments: the bank's own generated activity is off.
  sidecar.context.bank.sandbox!.ctx.settings.generatedActivity = false
  for (const [name, role] of [
    ['vera', 'viewer'],
    ['carla', 'clerk'],
  ] as const) {
    const created = await api('POST', '/users', { name, role })
    expect(created.status).toBe(201)
    tokens[name] = created.body.token
  }
  for (const [id, number] of [
    ['inv-sh-1', 'SH-1001'],
    ['inv-sh-2', 'SH-1002'],
  ]) {
    const put = await api('PUT', `/invoices/${id}`, {
      number,
      amount: '250.00',
      currency,
      customerName: 'Acme Ltd',
    })
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300)
  }
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('PUT /api/settings/matching', () => {
  it('shows anyone the mode the environment sets until an admin sets one', async () => {
    expect(await api('GET', '/settings/matching', undefined, 'vera')).toMatchObject({
      status: 200,
      body: { autoApply: 'shadow', source: 'environment', changedBy: null },
    })
  })

  it('refuses a viewer and a clerk with 403 naming the role needed', async () => {
    for (const who of ['vera', 'carla']) {
      const refused = await api('PUT', '/settings/matching', { autoApply: 'on' }, who)
      expect(refused.status).toBe(403)
      expect(refused.body.error).toMatchObject({ code: 'forbidden' })
      expect(refused.body.error.message).toContain('admin')
    }
    expect((await api('GET', '/settings/matching')).body.autoApply).toBe('shadow')
  })

  it('refuses the dashboard’s switch to a clerk, and to a bad mode, changing nothing', async () => {
    const session = await fetch(`${sidecar.url}/admin/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.carla}` },
    })
    expect(session.status).toBe(204)
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!
    const post = (body: string, as = cookie) =>
      fetch(`${sidecar.url}/dashboard/settings/matching`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: as, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })
    const refused = await post('autoApply=on&back=%2Fdashboard%2Ftrust')
    expect(refused.status).toBe(303)
    expect(decodeURIComponent(refused.headers.get('set-cookie') ?? '')).toContain('needs the admin role')
    const admin = await fetch(`${sidecar.url}/admin/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    })
    const bad = await post('autoApply=maybe', admin.headers.get('set-cookie')!.split(';')[0]!)
    expect(decodeURIComponent(bad.headers.get('set-cookie') ?? '')).toContain(
      'must be one of off, shadow, on',
    )
    expect((await api('GET', '/settings/matching')).body).toMatchObject({
      autoApply: 'shadow',
      source: 'environment',
    })
  })

  it('answers a bad mode, a missing one and an unknown field with 400 naming it', async () => {
    const bad = await api('PUT', '/settings/matching', { autoApply: 'maybe' })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toEqual([
      { path: 'body.autoApply', message: 'must be one of off, shadow, on' },
    ])
    const missing = await api('PUT', '/settings/matching', {})
    expect(missing.status).toBe(400)
    expect(missing.body.error.details[0].path).toBe('body.autoApply')
    const extra = await api('PUT', '/settings/matching', { autoApply: 'on', threshold: 50 })
    expect(extra.status).toBe(400)
    expect(extra.body.error.message).toContain('threshold')
    expect((await api('GET', '/settings/matching')).body).toMatchObject({
      autoApply: 'shadow',
      source: 'environment',
    })
  })
})

describe('GET /api/matching/trust-report', () => {
  it('answers bad, missing and reversed dates with 400 naming the field', async () => {
    const bad = await api('GET', '/matching/trust-report?from=2026-02-30&to=2026-03-01')
    expect(bad.status).toBe(400)
    expect(bad.body.error.details.map((d: any) => d.path)).toEqual(['query.from'])
    const missing = await api('GET', '/matching/trust-report?from=2026-03-01')
    expect(missing.status).toBe(400)
    expect(missing.body.error.details.map((d: any) => d.path)).toEqual(['query.to'])
    const reversed = await api('GET', '/matching/trust-report?from=2026-03-02&to=2026-03-01')
    expect(reversed.status).toBe(400)
    expect(reversed.body.error.details).toEqual([{ path: 'query.from', message: 'must not be after to' }])
  })
})

describe('shadow mode end to end: webhook → sync → matching → a person → the trust report', () => {
  it('applies nothing in shadow, records it, agrees with the person, and applies the next payment once switched on', async () => {
    const held = await bankPays({ amount: '250.00', paymentReference: 'SH-1001', counterpartyName: 'Acme' })
    let key = ''
    await vi.waitFor(
      async () => {
        const open = await api('GET', `/exceptions?type=suggested_match&transactionId=${held}`)
        expect(open.body.data).toHaveLength(1)
        key = open.body.data[0].key
      },
      { timeout: 30_000, interval: 200 },
    )
    expect((await api('GET', `/allocations?transactionId=${held}`)).body.data).toEqual([])
    expect((await api('GET', '/invoices/inv-sh-1')).body).toMatchObject({ status: 'open' })
    const recorded = await sidecar.context.store.db.selectFrom('shadow_decisions').selectAll().execute()
    expect(recorded).toMatchObject([{ transaction_id: held, kind: 'allocate', invoice_ids: ['inv-sh-1'] }])

    // A clerk matches it as the engine would have.
    const matched = await api('POST', '/allocations', { transactionId: held, invoiceId: 'inv-sh-1' }, 'carla')
    expect(matched.status, JSON.stringify(matched.body)).toBe(201)
    const resolved = await sidecar.context.store.db
      .selectFrom('match_exceptions')
      .select('resolution')
      .where('key', '=', key)
      .executeTakeFirstOrThrow()
    expect(resolved.resolution).toBe('manual_match')
    const agreed = await report()
    expect(agreed.status).toBe(200)
    expect(agreed.body).toMatchObject({
      mode: { autoApply: 'shadow' },
      shadow: { lines: 1, agreed: 1, disagreed: 0, open: 0, agreementRate: 1, disagreements: [] },
    })
    expect(agreed.body.shadow.decisions[0]).toMatchObject({
      transactionId: held,
      person: { outcome: 'agreed', actors: ['carla'] },
    })

    // Automation on, in the running sidecar: the next payment is applied by the engine.
    const switched = await api('PUT', '/settings/matching', { autoApply: 'on' })
    expect(switched).toMatchObject({
      status: 200,
      body: { autoApply: 'on', source: 'stored', changedBy: 'admin' },
    })
    const next = await bankPays({ amount: '250.00', paymentReference: 'SH-1002', counterpartyName: 'Acme' })
    await vi.waitFor(
      async () => {
        const allocations = (await api('GET', `/allocations?transactionId=${next}`)).body.data
        expect(allocations).toMatchObject([{ invoiceId: 'inv-sh-2', madeBy: 'engine', amount: '250' }])
      },
      { timeout: 30_000, interval: 200 },
    )
    expect((await api('GET', '/invoices/inv-sh-2')).body).toMatchObject({ status: 'paid' })
    const after = await report()
    expect(after.body).toMatchObject({
      mode: { autoApply: 'on', source: 'stored' },
      shadow: { lines: 1, agreed: 1 },
      automatic: { lines: 1, undone: 0 },
    })
    const audit = await api('GET', '/audit?action=matching.mode_changed')
    expect(audit.body.data).toMatchObject([
      {
        actor: 'admin',
        actorRole: 'admin',
        payload: { from: 'shadow', to: 'on', previousSource: 'environment' },
      },
    ])
  }, 90_000)
})
