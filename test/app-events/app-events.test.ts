import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  publishAppEvent,
  publishAppEvents,
  startAppEventDelivery,
  type AppEventDelivery,
} from '../../src/app-events/index.js'
import { systemClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import type { QueueBackendConfig } from '../../src/queue/index.js'
import { getAppEvent } from '../../src/store/index.js'
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/test-database.js'
import { startAppEndpoint, type AppEndpoint } from './app-endpoint.js'

const SECRET = 'app-secret-0123456789abcdef'
const backend: QueueBackendConfig = {
  kind: 'redis',
  url: 'redis://127.0.0.1:6379',
  prefix: `test-app-events-${randomBytes(4).toString('hex')}`,
}
const logger = createLogger({ level: 'silent' })
let database: TestDatabase
let app: AppEndpoint
let delivery: AppEventDelivery

beforeAll(async () => {
  database = await createTestDatabase('app_events')
  app = await startAppEndpoint(SECRET)
  delivery = await startAppEventDelivery({
    db: database.db,
    connectionString: TEST_DATABASE_URL,
    schema: database.schema,
    backend,
    clock: systemClock,
    logger,
    target: { url: app.url, secret: SECRET },
    retryDelayMs: 20,
  })
})

afterAll(async () => {
  await delivery?.close()
  await app?.close()
  await database?.drop()
})

const id = () => `evt_${randomBytes(6).toString('hex')}`

describe('app events', () => {
  it('delivers an event committed with its transaction in the bank envelope, signed with APP_WEBHOOK_SECRET', async () => {
    const eventId = id()
    await database.db.transaction().execute(async (trx) => {
      await publishAppEvent(trx, {
        id: eventId,
        type: 'invoice.paid',
        data: { invoiceId: 'inv_1', amount: '10.00' },
      })
    })
    const received = await app.waitFor(eventId)
    expect(received).toMatchObject({
      id: eventId,
      type: 'invoice.paid',
      data: { invoiceId: 'inv_1', amount: '10.00' },
      verified: true,
    })
    expect(Number.isNaN(Date.parse(received.createdAt))).toBe(false)
    await expect.poll(async () => (await getAppEvent(database.db, eventId))?.deliveredAt).toBeInstanceOf(Date)
  })

  it('never sends an event whose transaction rolled back', async () => {
    const rolledBack = id()
    const committed = id()
    await expect(
      database.db.transaction().execute(async (trx) => {
        await publishAppEvent(trx, { id: rolledBack, type: 'invoice.paid', data: {} })
        throw new Error('the state change failed')
      }),
    ).rejects.toThrow('the state change failed')
    await publishAppEvent(database.db, { id: committed, type: 'invoice.paid', data: {} })
    await app.waitFor(committed)
    await delivery.requeue(0)
    expect(await getAppEvent(database.db, rolledBack)).toBeUndefined()
    expect(app.deliveries.some((d) => d.id === rolledBack)).toBe(false)
  })

  it('retries after the app answers 500 until it takes the event, which the app processes once by id', async () => {
    const eventId = id()
    app.answerWith([500, 503])
    await publishAppEvent(database.db, { id: eventId, type: 'payment.unmatched', data: { n: 1 } })
    await app.waitFor(eventId)
    expect(app.deliveries.filter((d) => d.id === eventId).map((d) => d.verified)).toEqual([true, true, true])
    expect(app.processed.get(eventId)?.data).toEqual({ n: 1 })
    await expect
      .poll(async () => {
        const stored = await getAppEvent(database.db, eventId)
        return { delivered: stored?.deliveredAt instanceof Date, attempts: stored?.attempts }
      })
      .toEqual({ delivered: true, attempts: 3 })
  })

  it('records and sends one event when the same id is published twice', async () => {
    const eventId = id()
    expect(
      await publishAppEvent(database.db, { id: eventId, type: 'invoice.paid', data: { first: true } }),
    ).toBe(true)
    expect(
      await publishAppEvent(database.db, { id: eventId, type: 'invoice.paid', data: { first: false } }),
    ).toBe(false)
    await app.waitFor(eventId)
    await delivery.requeue(0)
    const marker = id()
    await publishAppEvent(database.db, { id: marker, type: 'invoice.paid', data: {} })
    await app.waitFor(marker)
    expect(app.deliveries.filter((d) => d.id === eventId)).toHaveLength(1)
    expect(app.processed.get(eventId)?.data).toEqual({ first: true })
  })

  it('records a batch in one call, skips ids already recorded and sends each new one once', async () => {
    const known = id()
    await publishAppEvent(database.db, { id: known, type: 'invoice.paid', data: { first: true } })
    await app.waitFor(known)
    const fresh = [id(), id()]
    // The rescan runs every 60 s: within the wait below only the batch's NOTIFYs can get these sent.
    const recorded = await database.db.transaction().execute((trx) =>
      publishAppEvents(trx, [
        { id: fresh[0]!, type: 'invoice.paid', data: { n: 0 } },
        { id: known, type: 'invoice.paid', data: { first: false } },
        { id: fresh[1]!, type: 'invoice.partially_paid', data: { n: 1 } },
      ]),
    )
    expect(recorded).toEqual(fresh)
    await app.waitFor(fresh[0]!)
    await app.waitFor(fresh[1]!)
    expect(app.processed.get(fresh[1]!)?.type).toBe('invoice.partially_paid')
    expect(app.processed.get(known)?.data).toEqual({ first: true })
  })

  it('queues again an outbox row whose job was lost', async () => {
    const eventId = id()
    // Recorded without its NOTIFY: as if the process died before anything queued it.
    await database.db
      .insertInto('app_events')
      .values({ id: eventId, type: 'invoice.reopened', payload: JSON.stringify({}) })
      .execute()
    expect(await delivery.requeue(0)).toBeGreaterThanOrEqual(1)
    await app.waitFor(eventId)
  })

  it('rejects an event type that is not dotted lower-case', async () => {
    await expect(publishAppEvent(database.db, { id: id(), type: 'InvoicePaid', data: {} })).rejects.toThrow()
  })
})

describe('without APP_WEBHOOK_URL', () => {
  it('keeps events in the outbox, sends nothing and says so in the log once', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    // A database of its own: the sending pipeline above would otherwise deliver this event.
    const own = await createTestDatabase('app_events_record_only')
    const recordOnly = await startAppEventDelivery({
      db: own.db,
      connectionString: TEST_DATABASE_URL,
      schema: own.schema,
      backend,
      clock: systemClock,
      logger: createLogger({ level: 'info', destination: sink }),
      target: null,
    })
    const eventId = id()
    await publishAppEvent(own.db, { id: eventId, type: 'invoice.paid', data: {} })
    expect(await recordOnly.requeue(0)).toBe(0)
    await recordOnly.close()
    expect(lines.filter((l) => l.includes('APP_WEBHOOK_URL is not set'))).toHaveLength(1)
    expect((await getAppEvent(own.db, eventId))?.deliveredAt).toBeNull()
    await own.drop()
  })
})

describe('on the PostgreSQL queue backend (no REDIS_URL)', () => {
  it('delivers an event, after a 500 from the app, once by id', async () => {
    const own = await createTestDatabase('app_events_pg_queue')
    const pgApp = await startAppEndpoint(SECRET)
    const pgDelivery = await startAppEventDelivery({
      db: own.db,
      connectionString: TEST_DATABASE_URL,
      schema: own.schema,
      backend: { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: `${own.schema}_queue` },
      clock: systemClock,
      logger,
      target: { url: pgApp.url, secret: SECRET },
      retryDelayMs: 20,
    })
    try {
      pgApp.answerWith([500])
      const eventId = id()
      await own.db
        .transaction()
        .execute((trx) => publishAppEvent(trx, { id: eventId, type: 'invoice.paid', data: {} }))
      await pgApp.waitFor(eventId)
      expect(pgApp.deliveries.filter((d) => d.id === eventId)).toHaveLength(2)
    } finally {
      await pgDelivery.close()
      await pgApp.close()
      await sql`drop schema if exists ${sql.id(`${own.schema}_queue`)} cascade`.execute(own.db)
      await own.drop()
    }
  })
})

describe('two worker processes hearing the same NOTIFYs', () => {
  it('send each event once', async () => {
    const own = await createTestDatabase('app_events_two_listeners')
    const twoApp = await startAppEndpoint(SECRET)
    const start = () =>
      startAppEventDelivery({
        db: own.db,
        connectionString: TEST_DATABASE_URL,
        schema: own.schema,
        backend,
        clock: systemClock,
        logger,
        target: { url: twoApp.url, secret: SECRET },
        retryDelayMs: 20,
      })
    const [first, second] = [await start(), await start()]
    try {
      const ids = Array.from({ length: 30 }, () => id())
      await own.db.transaction().execute((trx) =>
        publishAppEvents(
          trx,
          ids.map((eventId) => ({ id: eventId, type: 'invoice.paid', data: {} })),
        ),
      )
      for (const eventId of ids) await twoApp.waitFor(eventId)
      // Both processes heard every NOTIFY; the lease let one send each, and the app saw no redelivery.
      expect(twoApp.deliveries.map((d) => d.id).sort()).toEqual([...ids].sort())
      await vi.waitFor(
        async () => {
          const rows = await own.db.selectFrom('app_events').select(['attempts', 'delivered_at']).execute()
          expect(rows.map((row) => [row.attempts, row.delivered_at !== null])).toEqual(
            ids.map(() => [1, true]),
          )
        },
        { timeout: 10_000, interval: 20 },
      )
    } finally {
      await first.close()
      await second.close()
      await twoApp.close()
      await own.drop()
    }
  })
})
