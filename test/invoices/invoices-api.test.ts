import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import express from 'express'
import { sql } from 'kysely'
import request from 'supertest'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import { answerApiError, assignRequestId } from '../../src/sidecar/api-error.js'
import { invoiceRoutes } from '../../src/sidecar/api/invoices.js'
import type { SidecarContext } from '../../src/sidecar/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'
import { testApiGuard } from '../support/test-auth.js'

const TOKEN = 'invoices-api-token-0123456789'
const auth = { authorization: `Bearer ${TOKEN}` }
let database: TestDatabase
let app: express.Express
const changed: string[] = []
const clock = createVirtualClock({ start: new Date('2026-03-01T09:00:00Z'), followRealTime: false })
const body = { number: 'INV-1001', amount: '120.50', currency: 'EUR', customerName: 'Acme Ltd' }

beforeAll(async () => {
  database = await createTestDatabase('invoices_api')
  const context = {
    store: { db: database.db, pool: database.pool },
    clock,
    logger: createLogger({ level: 'silent', destination: process.stderr }),
    matching: { invoicesChanged: (ids: readonly string[]) => void changed.push(...ids) },
  } as unknown as SidecarContext
  // The same pieces as the sidecar's /api mount (src/sidecar/http-app.ts).
  app = express()
  app.use(assignRequestId)
  app.use('/api', testApiGuard(database.db, TOKEN), express.json({ limit: '10mb' }), invoiceRoutes(context))
  app.use(answerApiError(() => undefined))
})
afterAll(async () => {
  await database?.drop()
})
beforeEach(async () => {
  changed.length = 0
  await sql`truncate invoices`.execute(database.db)
})

describe('invoice API', () => {
  it('answers 401 without the bearer token', async () => {
    for (const call of [
      request(app).get('/api/invoices'),
      request(app).put('/api/invoices/a').send(body),
      request(app).post('/api/invoices/import').set('content-type', 'text/csv').send('id'),
      request(app).delete('/api/invoices/a').set('authorization', 'Bearer wrong'),
    ]) {
      const res = await call
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('unauthorized')
    }
  })

  it('PUT creates with 201, repeats with 200, and GET returns the invoice with its derived fields', async () => {
    const created = await request(app).put('/api/invoices/inv_1').set(auth).send(body)
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: 'inv_1',
      ...body,
      customerAliases: [],
      issueDate: null,
      dueDate: null,
      entityId: null,
      accountId: null,
      metadata: null,
      customerId: null,
      paymentReference: null,
      earlyPaymentDiscount: null,
      amountCredited: '0',
      status: 'open',
      amountPaid: '0',
      amountPending: '0',
      amountOpen: '120.50',
      amountOverpaid: '0',
      amountWrittenOff: '0',
      version: 1,
      voidedAt: null,
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    })
    const again = await request(app)
      .put('/api/invoices/inv_1')
      .set(auth)
      .send({ ...body, amount: '130.00' })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ amount: '130.00', version: 2 })
    expect(changed).toEqual(['inv_1', 'inv_1'])
    const got = await request(app).get('/api/invoices/inv_1').set(auth)
    expect(got.status).toBe(200)
    // GET adds a person's write-offs of the open rest (docs/closing.md).
    expect(got.body).toEqual({ ...again.body, writeOffs: [] })
  })

  it('names every bad field of a PUT and writes nothing', async () => {
    const res = await request(app)
      .put('/api/invoices/inv_2')
      .set(auth)
      .send({ number: 'INV-2', amount: 120.5, currency: 'eur', status: 'paid' })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('validation_error')
    expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toEqual([
      'body.amount',
      'body.currency',
      'body.status',
    ])
    expect(res.body.error.message).toMatch(/body\.amount must be a decimal string/)
    expect((await request(app).get('/api/invoices/inv_2').set(auth)).status).toBe(404)
  })

  it('refuses an id in the body that differs from the path, and a bad id in the path', async () => {
    const differs = await request(app)
      .put('/api/invoices/inv_3')
      .set(auth)
      .send({ ...body, id: 'other' })
    expect(differs.body.error.details).toEqual([
      { path: 'body.id', message: 'must equal the id in the path' },
    ])
    const badId = await request(app).put('/api/invoices/bad%20id').set(auth).send(body)
    expect(badId.status).toBe(400)
    expect(badId.body.error.details[0].path).toBe('params.id')
  })

  it('answers 404 with not_found for an unknown invoice on GET and DELETE', async () => {
    for (const call of [request(app).get('/api/invoices/none'), request(app).delete('/api/invoices/none')]) {
      const res = await call.set(auth)
      expect(res.status).toBe(404)
      expect(res.body.error).toMatchObject({ code: 'not_found', requestId: expect.any(String) })
    }
  })

  it('DELETE voids: 200 with the voided invoice, the row kept and listed as void', async () => {
    await request(app).put('/api/invoices/inv_4').set(auth).send(body)
    const res = await request(app).delete('/api/invoices/inv_4').set(auth)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: 'inv_4', status: 'void', voidedAt: '2026-03-01T09:00:00.000Z' })
    const voided = await request(app).get('/api/invoices?status=void').set(auth)
    expect(voided.body.data.map((invoice: { id: string }) => invoice.id)).toEqual(['inv_4'])
    expect(changed).toEqual(['inv_4', 'inv_4'])
  })

  it('lists in the bank API envelope, filtered by customer, paged by cursor', async () => {
    for (const id of ['l1', 'l2', 'l3']) {
      await request(app)
        .put(`/api/invoices/${id}`)
        .set(auth)
        .send({ ...body, number: `L-${id}` })
    }
    await request(app)
      .put('/api/invoices/l4')
      .set(auth)
      .send({ ...body, number: 'L-4', customerName: 'Globex' })
    const first = await request(app).get('/api/invoices?customer=ACME&limit=2').set(auth)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      data: [{ id: 'l1' }, { id: 'l2' }],
      pagination: { hasMore: true, nextCursor: expect.any(String) },
      meta: { requestId: expect.any(String) },
    })
    const next = await request(app)
      .get('/api/invoices')
      .query({ customer: 'ACME', limit: 2, cursor: first.body.pagination.nextCursor })
      .set(auth)
    expect(next.body).toMatchObject({
      data: [{ id: 'l3' }],
      pagination: { hasMore: false, nextCursor: null },
    })
    const otherFilter = await request(app)
      .get('/api/invoices')
      .query({ customer: 'Globex', cursor: first.body.pagination.nextCursor })
      .set(auth)
    expect(otherFilter.status).toBe(400)
    expect(otherFilter.body.error.code).toBe('invalid_cursor')
  })

  it('refuses a bad limit or status, naming the query parameter', async () => {
    const res = await request(app).get('/api/invoices?limit=501&status=unpaid').set(auth)
    expect(res.status).toBe(400)
    expect(res.body.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      'query.limit',
      'query.status',
    ])
  })

  it('imports a text/csv body all or nothing and answers with counts', async () => {
    const csv = 'id,number,amount,currency\ni1,INV-1,10.00,EUR\ni2,INV-2,20.00,EUR\n'
    const res = await request(app)
      .post('/api/invoices/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send(csv)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ rows: 2, created: 2, updated: 0, unchanged: 0 })
    const json = await request(app).post('/api/invoices/import').set(auth).send({ csv })
    expect(json.body).toEqual({ rows: 2, created: 0, updated: 0, unchanged: 2 })
    expect(changed.sort()).toEqual(['i1', 'i2'])
  })

  it('answers 400 with every bad row and its reasons, and imports nothing', async () => {
    const csv = 'id,number,amount,currency\ni1,INV-1,10.00,EUR\ni2,INV-2,-1,EUR\ni3,INV-3,5,eur\n'
    const res = await request(app)
      .post('/api/invoices/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send(csv)
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({
      code: 'invalid_csv',
      message: '2 rows are invalid (of 3); nothing was imported.',
      details: [
        { path: 'line.3.amount', message: expect.any(String) },
        { path: 'line.4.currency', message: expect.any(String) },
      ],
      rows: [
        {
          line: 3,
          id: 'i2',
          reasons: [{ field: 'amount', message: expect.stringMatching(/plain decimal/) }],
        },
        { line: 4, id: 'i3', reasons: [{ field: 'currency', message: expect.stringMatching(/upper-case/) }] },
      ],
    })
    expect((await request(app).get('/api/invoices').set(auth)).body.data).toEqual([])
  })

  it('answers a 4 MB file of bad rows with a bounded report: the first 100 rows and a count', async () => {
    // Each row is wrong in every column, the shape that made the old report ~125 times the input.
    const row = (i: number) => `"bad id ${i}",${'N'.repeat(20)},1e9x,euro,,,20260230,yesterday,,,{no json}`
    const header =
      'id,number,amount,currency,customerName,customerAliases,issueDate,dueDate,entityId,accountId,metadata'
    const lines = [header]
    let size = header.length
    for (let i = 0; size < 4 * 1024 * 1024; i++) {
      lines.push(row(i))
      size += lines.at(-1)!.length + 1
    }
    const res = await request(app)
      .post('/api/invoices/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send(lines.join('\n'))
    expect(res.status).toBe(400)
    const answerBytes = Buffer.byteLength(res.text)
    expect(answerBytes).toBeLessThan(200 * 1024)
    expect(answerBytes).toBeLessThan(size / 20)
    expect(res.body.error).toMatchObject({ code: 'invalid_csv', badRows: 1000, stoppedAtLine: 1002 })
    expect(res.body.error.rows).toHaveLength(100)
    expect(res.body.error.rows.at(-1).line).toBe(101)
    expect(res.body.error.message).toBe(
      '1000 rows are invalid; checking stopped there, at line 1002; the first 100 are listed; nothing was imported.',
    )
    expect((await request(app).get('/api/invoices').set(auth)).body.data).toEqual([])
  })

  it('refuses a chunked CSV body past the limit with 413, and U+0000 with the line it is on', async () => {
    const nul = await request(app)
      .post('/api/invoices/import')
      .set(auth)
      .set('content-type', 'text/csv')
      .send('id,number,amount,currency\ni1,INV-1,10.00,EUR\ni2,INV\u00002,1,EUR\n')
    expect(nul.status).toBe(400)
    expect(nul.body.error.details).toEqual([
      { path: 'line.3', message: 'must not contain U+0000 or an unpaired surrogate' },
    ])
    // Blank lines: nothing to validate, so only the byte limit can stop it.
    const chunk = Buffer.alloc(1024 * 1024, '\n')
    let sent = 0
    const huge = Readable.from(
      (function* () {
        yield Buffer.from('id,number,amount,currency\n')
        // 51 MB without a Content-Length: refused once the limit is passed, not read to the end.
        while (sent < 51 * 1024 * 1024) {
          sent += chunk.length
          yield chunk
        }
      })(),
    )
    const server = app.listen(0, '127.0.0.1')
    await once(server, 'listening')
    try {
      const { port } = server.address() as AddressInfo
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          { port, host: '127.0.0.1', method: 'POST', path: '/api/invoices/import' },
          (res) => {
            let text = ''
            res.on('data', (data) => (text += data))
            res.on('end', () => resolve({ status: res.statusCode!, body: text }))
          },
        )
        req.setHeader('authorization', auth.authorization)
        req.setHeader('content-type', 'text/csv')
        req.on('error', reject)
        huge.pipe(req)
      })
      expect(answer.status).toBe(413)
      expect(JSON.parse(answer.body).error.code).toBe('payload_too_large')
      expect((await request(app).get('/api/invoices').set(auth)).body.data).toEqual([])
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('refuses an import body that is neither CSV nor { csv }', async () => {
    const res = await request(app).post('/api/invoices/import').set(auth).send({ file: 'x' })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual([
      { path: 'body', message: 'must be a CSV text or JSON { "csv": string }' },
    ])
  })
})

describe('invoice API in a running sidecar', () => {
  it('is mounted under /api behind the token', async () => {
    const sidecar = await startTestSidecar('invoices_api', ['api'])
    try {
      const put = await request(sidecar.url)
        .put('/api/invoices/s1')
        .set('authorization', `Bearer ${API_TOKEN}`)
        .send(body)
      expect(put.status).toBe(201)
      const list = await request(sidecar.url).get('/api/invoices').set('authorization', `Bearer ${API_TOKEN}`)
      expect(list.body.data.map((invoice: { id: string }) => invoice.id)).toEqual(['s1'])
    } finally {
      await sidecar.close()
      await sidecar.drop()
    }
  })
})
