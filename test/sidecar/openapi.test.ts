import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { customerWrite } from '../../src/customers/index.js'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import { bankrecApiDocument } from '../../src/sidecar/openapi/index.js'
import { enqueueMatches, upsertCustomers, upsertTransactions } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { listRoutes } from '../support/express-routes.js'
import { createOpenApiValidator, documentedOperations } from '../support/openapi-validator.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
const validator = createOpenApiValidator()
const problems: string[] = []
/** `METHOD /api/template` of every answer checked against the document. */
const answered = new Set<string>()

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  token = API_TOKEN,
) {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': contentType }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const type = response.headers.get('content-type')
  const text = await response.text()
  const parsed = type?.includes('json') && text ? (JSON.parse(text) as any) : text
  const found = validator.check({ method, path, status: response.status, contentType: type, body: parsed })
  problems.push(...found)
  const template = Object.keys(bankrecApiDocument().paths ?? {}).find((t) =>
    new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0]!),
  )
  if (found.length === 0 && template) answered.add(`${method} ${template}`)
  return { status: response.status, body: parsed }
}

beforeAll(async () => {
  // Above what the run below disposes of, below the credit note and remittance write-off that must wait.
  sidecar = await startTestSidecar('openapi', ['api'], { APPROVAL_THRESHOLD_AMOUNT: '2000' })
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe("bankrec's OpenAPI document", () => {
  it('describes every /api route the express app registers, and nothing it does not', () => {
    const app = createSidecarApp(sidecar.context, { roles: new Set(['api']) })
    const routes = listRoutes(app as unknown as Parameters<typeof listRoutes>[0])
      .filter((route) => route.path.startsWith('/api/'))
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
    expect(routes.length).toBeGreaterThan(40)
    const documented = documentedOperations(bankrecApiDocument())
    expect(routes.filter((route) => !documented.has(route))).toEqual([])
    expect([...documented].filter((operation) => !routes.includes(operation))).toEqual([])
  })

  it('is served at /api/openapi.json without a token, and the committed copy is current', async () => {
    const response = await fetch(`${sidecar.url}/api/openapi.json`)
    expect(response.status).toBe(200)
    const served = (await response.json()) as ReturnType<typeof bankrecApiDocument>
    expect(served.openapi).toBe('3.1.0')
    expect(served).toEqual(JSON.parse(JSON.stringify(bankrecApiDocument())))
    const committed = await readFile(new URL('../../docs/bankrec-api.openapi.json', import.meta.url), 'utf8')
    expect(JSON.parse(committed)).toEqual(served)
  })

  it("holds every route's answers, success and refusal, to the document", async () => {
    const { db } = sidecar.context.store
    await upsertCustomers(
      db,
      [customerWrite({ id: 'c-acme', name: 'Acme Corp', aliases: [], bankAccounts: [] })],
      new Date(),
    )
    expect(
      (
        await call('PUT', '/api/invoices/inv-1', {
          number: 'INV-1',
          amount: '800.00',
          currency: 'USD',
          customerId: 'c-acme',
        })
      ).status,
    ).toBe(201)
    expect(
      (await call('PUT', '/api/invoices/inv-2', { number: 'INV-2', amount: '50.00', currency: 'USD' }))
        .status,
    ).toBe(201)
    expect(
      (await call('PUT', '/api/invoices/inv-3', { number: 'INV-3', amount: '70.00', currency: 'USD' }))
        .status,
    ).toBe(201)
    await upsertTransactions(db, [
      mirrorRow(1, { amount: '800.00', payment_reference: 'INV-1', description: null }),
      mirrorRow(2, {
        amount: '1000.00',
        payment_reference: null,
        description: null,
        raw_description: null,
        counterparty_name: 'Nobody',
      }),
      mirrorRow(3, { amount: '70.00', payment_reference: null, description: null, counterparty_name: 'Zed' }),
    ])
    await enqueueMatches(db, 'transaction', [txId(1), txId(2), txId(3)])
    await sidecar.context.matching.runNow()

    // The ledger and the mirror.
    for (const path of [
      '/api/me',
      '/api/users',
      '/api/audit',
      '/api/overview',
      '/api/alerts',
      '/api/transactions',
      '/api/accounts',
      '/api/balance-proof',
      '/api/transfers',
      '/api/report',
      '/api/journal?from=2020-01-01&to=2099-12-31',
      '/api/matching/config',
      '/api/invoices',
      '/api/invoices/inv-1',
      '/api/customers',
      '/api/customers/c-acme',
      '/api/allocations',
      '/api/dispositions',
      '/api/credit-notes',
      '/api/payments?payer=nobo&limit=1',
      '/api/open-invoices?q=INV',
    ]) {
      expect((await call('GET', path)).status, path).toBe(200)
    }
    expect((await call('GET', '/api/journal?from=2020-01-01&to=2099-12-31&format=csv')).status).toBe(200)
    expect((await call('GET', '/api/journal?from=bad&to=2099-12-31')).status).toBe(400)

    // Onboarding through the sandbox bank.
    const created = await call('POST', '/api/connections', {
      entityId: randomUUID(),
      institutionId: 'ins_harbor_national',
    })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    expect(
      (await call('PUT', `/api/connections/${id}/credentials`, { bankUsername: 'd.ops', password: 'pw-1' }))
        .status,
    ).toBe(200)
    expect((await call('PUT', `/api/connections/${id}/setupCompletion`)).status).toBe(200)
    await sidecar.context.bank.sandbox!.advance(15)
    expect((await call('GET', `/api/connections/${id}`)).status).toBe(200)
    expect((await call('GET', '/api/connections')).status).toBe(200)
    expect((await call('POST', `/api/connections/${id}/sync`)).status).toBe(202)
    expect((await call('POST', '/api/transfers', {})).status).toBe(400)
    expect((await call('GET', `/api/transfers/${randomUUID()}`)).status).toBe(404)
    expect((await call('POST', `/api/transfers/${randomUUID()}/retry`)).status).toBe(404)

    // Users.
    expect((await call('POST', '/api/users', { name: 'carl', role: 'clerk' })).status).toBe(201)
    expect((await call('PATCH', '/api/users/carl', { role: 'approver' })).status).toBe(200)
    expect((await call('DELETE', '/api/users/carl')).status).toBe(200)

    // Matching and closing.
    const exceptions = (await call('GET', '/api/exceptions')).body.data as Array<{
      key: string
      transactionId: string
    }>
    const unmatched = exceptions.find((e) => e.transactionId === txId(2))!
    // Only a suggested match can be accepted; tx 3's raw description suggests INV-3.
    expect((await call('POST', `/api/exceptions/${encodeURIComponent(unmatched.key)}/accept`)).status).toBe(
      409,
    )
    const suggestion = exceptions.find((e) => e.transactionId === txId(3))!
    expect((await call('POST', `/api/exceptions/${encodeURIComponent(suggestion.key)}/reject`)).status).toBe(
      200,
    )
    const disposed = await call('POST', `/api/exceptions/${encodeURIComponent(unmatched.key)}/dispose`, {
      kind: 'clearing',
      account: 'Suspense',
      reason: 'unknown payer',
    })
    expect(disposed.status).toBe(201)
    expect((await call('POST', `/api/dispositions/${disposed.body.id}/undo`)).status).toBe(200)
    expect((await call('POST', `/api/dispositions/${disposed.body.id}/approve`, {})).status).toBe(409)
    expect((await call('POST', `/api/dispositions/${disposed.body.id}/decline`, {})).status).toBe(409)
    const writeOff = await call('POST', '/api/invoices/inv-2/write-off', { reason: 'bad_debt' })
    expect([201, 400]).toContain(writeOff.status)
    const manual = await call('POST', '/api/allocations', { transactionId: txId(3), invoiceId: 'inv-3' })
    expect(manual.status).toBe(201)
    expect((await call('DELETE', `/api/allocations/${manual.body.id}`)).status).toBe(200)
    expect((await call('POST', `/api/transactions/${txId(3)}/give-back`)).status).toBe(200)
    const advice = await call('POST', `/api/transactions/${txId(3)}/remittance`, {
      lines: [{ invoiceNumber: 'INV-3', amount: '70.00' }],
    })
    expect(advice.status).toBe(201)
    expect((await call('POST', '/api/matching/dry-run', {})).status).toBe(200)

    // Master data.
    expect(
      (
        await call(
          'POST',
          '/api/invoices/import',
          'id,number,amount,currency\ninv-9,INV-9,9.00,USD\n',
          'text/csv',
        )
      ).status,
    ).toBe(200)
    expect((await call('POST', '/api/customers/import', 'id,name\nc-9,Nine Ltd\n', 'text/csv')).status).toBe(
      200,
    )
    expect((await call('PUT', '/api/customers/c-10', { name: 'Ten' })).status).toBe(201)
    expect((await call('DELETE', '/api/customers/c-acme/learned/999')).status).toBe(404)
    expect(
      (
        await call('PUT', '/api/credit-notes/cn-1', {
          number: 'CN-1',
          amount: '5.00',
          currency: 'USD',
          invoiceId: 'inv-9',
        })
      ).status,
    ).toBe(201)
    expect((await call('GET', '/api/credit-notes/cn-1')).status).toBe(200)
    expect((await call('DELETE', '/api/credit-notes/cn-1')).status).toBe(200)
    expect((await call('DELETE', '/api/invoices/inv-9')).status).toBe(200)
    expect((await call('GET', '/api/invoices/nope')).status).toBe(404)

    // The approval policy: what crosses the threshold waits for a second person with the approver role.
    const approver = (await call('POST', '/api/users', { name: 'april', role: 'approver' })).body
      .token as string
    const viewer = (await call('POST', '/api/users', { name: 'vera', role: 'viewer' })).body.token as string
    for (const invoice of ['big', 'rem']) {
      const put = await call('PUT', `/api/invoices/inv-${invoice}`, {
        number: `INV-${invoice.toUpperCase()}`,
        amount: '3000.00',
        currency: 'USD',
        customerId: 'c-acme',
      })
      expect(put.status).toBe(201)
    }
    const waiting = await call('PUT', '/api/credit-notes/cn-big', {
      number: 'CN-BIG',
      amount: '2500.00',
      currency: 'USD',
      invoiceId: 'inv-big',
    })
    expect([waiting.status, waiting.body.status]).toEqual([202, 'pending_approval'])
    // Its maker may not approve it.
    const own = await call('POST', '/api/credit-notes/cn-big/approve')
    expect([own.status, own.body.error.code]).toEqual([403, 'same_person'])
    expect(
      (await call('POST', '/api/credit-notes/cn-big/decline', undefined, undefined, viewer)).status,
    ).toBe(403)
    expect(
      (await call('POST', '/api/credit-notes/nope/approve', undefined, undefined, approver)).status,
    ).toBe(404)
    const approved = await call('POST', '/api/credit-notes/cn-big/approve', undefined, undefined, approver)
    expect([approved.status, approved.body.approvedBy]).toEqual([200, 'april'])
    expect(
      (await call('POST', '/api/credit-notes/cn-big/decline', undefined, undefined, approver)).status,
    ).toBe(409)
    await upsertTransactions(db, [
      mirrorRow(4, {
        amount: '500.00',
        payment_reference: null,
        description: null,
        counterparty_name: 'Quiet',
      }),
    ])
    const held = await call('POST', `/api/transactions/${txId(4)}/remittance`, {
      lines: [{ invoiceNumber: 'INV-REM', amount: '3000.00' }],
      fee: '2500.00',
    })
    expect([held.status, held.body.status]).toEqual([202, 'pending_approval'])
    const pending = await call('GET', '/api/approvals', undefined, undefined, viewer)
    expect(pending.status).toBe(200)
    expect(pending.body.data).toContainEqual(
      expect.objectContaining({ kind: 'remittance', id: held.body.importId }),
    )
    expect((await call('GET', '/api/approvals?limit=0')).status).toBe(400)
    const decide = (id: string, decision: string, token = approver, body?: unknown) =>
      call('POST', `/api/remittance-imports/${id}/${decision}`, body, undefined, token)
    expect((await decide(held.body.importId, 'approve', API_TOKEN)).status).toBe(403)
    expect((await decide(held.body.importId, 'decline', approver, { note: 7 })).status).toBe(400)
    expect((await decide('not-an-id', 'approve')).status).toBe(400)
    expect((await decide('999999', 'approve')).status).toBe(404)
    expect((await decide(held.body.importId, 'approve')).body).toMatchObject({ status: 'active' })
    expect((await decide(held.body.importId, 'decline')).status).toBe(409)

    // Shadow mode.
    expect((await call('GET', '/api/settings/matching')).body.autoApply).toEqual(expect.any(String))
    expect((await call('PUT', '/api/settings/matching', { autoApply: 'sometimes' })).status).toBe(400)
    expect(
      (await call('PUT', '/api/settings/matching', { autoApply: 'shadow' }, undefined, viewer)).status,
    ).toBe(403)
    const shadow = await call('PUT', '/api/settings/matching', { autoApply: 'shadow' })
    expect([shadow.status, shadow.body.source]).toEqual([200, 'stored'])
    await upsertTransactions(db, [
      mirrorRow(5, { amount: '50.00', payment_reference: 'INV-2', description: null }),
    ])
    await enqueueMatches(db, 'transaction', [txId(5)])
    await sidecar.context.matching.runNow()
    const day = new Date().toISOString().slice(0, 10)
    const trust = await call('GET', `/api/matching/trust-report?from=${day}&to=${day}`)
    expect([trust.status, trust.body.mode.autoApply]).toEqual([200, 'shadow'])
    expect((await call('GET', '/api/matching/trust-report?from=2026-02-02&to=2026-02-01')).status).toBe(400)

    expect(problems).toEqual([])
    const documented = [...documentedOperations(bankrecApiDocument())].filter(
      (op) => op !== 'GET /api/openapi.json',
    )
    expect(documented.filter((operation) => !answered.has(operation))).toEqual([])
  }, 60_000)
})
