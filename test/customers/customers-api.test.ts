import express from 'express'
import { sql } from 'kysely'
import request from 'supertest'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import { answerApiError, assignRequestId } from '../../src/sidecar/api-error.js'
import { customerRoutes } from '../../src/sidecar/api/customers.js'
import type { SidecarContext } from '../../src/sidecar/index.js'
import { learnCustomerLinks, upsertInvoices } from '../../src/store/index.js'
import { testApiGuard } from '../support/test-auth.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'
import { withKeys } from '../../src/invoices/index.js'

const TOKEN = 'customers-api-token-0123456789'
const auth = { authorization: `Bearer ${TOKEN}` }
let database: TestDatabase
let app: express.Express
const runs: string[] = []
const clock = createVirtualClock({ start: new Date('2026-03-01T09:00:00Z'), followRealTime: false })
const acme = {
  name: 'Acme Trading GmbH',
  aliases: ['ACME TRADING'],
  bankAccounts: ['DE89 3704 0044 0532 0130 00'],
}

beforeAll(async () => {
  database = await createTestDatabase('customers_api')
  const context = {
    store: { db: database.db, pool: database.pool },
    clock,
    logger: createLogger({ level: 'silent', destination: process.stderr }),
    matching: { requestRun: async (reason: string) => void runs.push(reason) },
  } as unknown as SidecarContext
  app = express()
  app.use(assignRequestId)
  app.use('/api', testApiGuard(database.db, TOKEN), express.json({ limit: '10mb' }), customerRoutes(context))
  app.use(answerApiError(() => undefined))
})
afterAll(async () => {
  await database?.drop()
})
beforeEach(async () => {
  runs.length = 0
  await sql`truncate customers, customer_links, invoices, pending_matches`.execute(database.db)
})

describe('customer API', () => {
  it('PUT creates with 201, repeats unchanged with 200 and the same version, GET returns it', async () => {
    const created = await request(app).put('/api/customers/cus_acme').set(auth).send(acme)
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ id: 'cus_acme', ...acme, learned: [], version: 1 })
    const again = await request(app).put('/api/customers/cus_acme').set(auth).send(acme)
    expect(again.status).toBe(200)
    expect(again.body.version).toBe(1)
    const got = await request(app).get('/api/customers/cus_acme').set(auth)
    expect(got.body).toMatchObject({ id: 'cus_acme', name: 'Acme Trading GmbH' })
    expect(runs).toEqual(['customers-changed'])
  })

  it('queues the customer’s invoices for matching in the same transaction as the change', async () => {
    await upsertInvoices(
      database.db,
      [withKeys({ id: 'inv_1', number: 'INV-1', amount: '10', currency: 'EUR', customerId: 'cus_acme' })],
      clock.now(),
    )
    await request(app).put('/api/customers/cus_acme').set(auth).send(acme)
    const queued = await database.db.selectFrom('pending_matches').select(['kind', 'entity_id']).execute()
    expect(queued).toEqual([{ kind: 'invoice', entity_id: 'inv_1' }])
  })

  it('names every bad field, an IBAN with wrong check digits included, and writes nothing', async () => {
    const res = await request(app)
      .put('/api/customers/cus_x')
      .set(auth)
      .send({ name: '', bankAccounts: ['DE89 3704 0044 0532 0130 01', '12'], nickname: 'x' })
    expect(res.status).toBe(400)
    const paths = res.body.error.details.map((detail: { path: string }) => detail.path).sort()
    expect(paths).toEqual(['body.bankAccounts.0', 'body.bankAccounts.1', 'body.name', 'body.nickname'])
    expect(res.body.error.message).toContain('is not a valid IBAN')
    expect((await request(app).get('/api/customers/cus_x').set(auth)).status).toBe(404)
  })

  it('lists by name (legal form and spelling aside), paged by cursor', async () => {
    await request(app).put('/api/customers/a').set(auth).send({ name: 'Müller GmbH' })
    await request(app).put('/api/customers/b').set(auth).send({ name: 'Mueller KG' })
    await request(app).put('/api/customers/c').set(auth).send({ name: 'Globex' })
    const first = await request(app).get('/api/customers?name=muller&limit=1').set(auth)
    expect(first.body.data.map((customer: { id: string }) => customer.id)).toEqual(['a'])
    const second = await request(app)
      .get(`/api/customers?name=muller&limit=1&cursor=${first.body.pagination.nextCursor}`)
      .set(auth)
    expect(second.body.data.map((customer: { id: string }) => customer.id)).toEqual(['b'])
    expect(second.body.pagination.hasMore).toBe(false)
  })

  it('imports a CSV all or nothing, aliases and accounts separated by |', async () => {
    const good =
      'id,name,aliases,bankAccounts\ncus_1,Acme,ACME|Acme Co,DE89 3704 0044 0532 0130 00|000123456789\n'
    const res = await request(app)
      .post('/api/customers/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send(good)
    expect(res.body).toEqual({ rows: 1, created: 1, updated: 0, unchanged: 0 })
    const bad = 'id,name,bankAccounts\ncus_2,Two,\ncus_3,,DE00 0000\n'
    const refused = await request(app)
      .post('/api/customers/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send(bad)
    expect(refused.status).toBe(400)
    expect(refused.body.error.rows).toMatchObject([{ line: 3, id: 'cus_3' }])
    expect((await request(app).get('/api/customers/cus_2').set(auth)).status).toBe(404)
  })

  it('shows what a person’s match taught and forgets it on DELETE', async () => {
    await request(app).put('/api/customers/cus_acme').set(auth).send(acme)
    const [link] = await learnCustomerLinks(
      database.db,
      [
        {
          customer_id: 'cus_acme',
          kind: 'account',
          value: 'XXXX4411',
          key: '****4411',
          transaction_id: null,
          invoice_id: 'inv_1',
        },
      ],
      clock.now(),
    )
    const shown = await request(app).get('/api/customers/cus_acme').set(auth)
    expect(shown.body.learned).toMatchObject([
      { id: link!.id, kind: 'account', value: 'XXXX4411', invoiceId: 'inv_1' },
    ])
    const forgotten = await request(app).delete(`/api/customers/cus_acme/learned/${link!.id}`).set(auth)
    expect(forgotten.status).toBe(200)
    expect((await request(app).get('/api/customers/cus_acme').set(auth)).body.learned).toEqual([])
    expect((await request(app).delete(`/api/customers/cus_acme/learned/${link!.id}`).set(auth)).status).toBe(
      404,
    )
  })
})
