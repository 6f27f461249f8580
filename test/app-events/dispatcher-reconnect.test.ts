import { createHash, randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { publishAppEvents, startAppEventDispatcher } from '../../src/app-events/index.js'
import { systemClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import {
  APP_EVENTS_QUEUE,
  appEventJobId,
  createBackendQueue,
  type AppEventJobData,
} from '../../src/queue/index.js'
import { APP_EVENTS_CHANNEL_PREFIX, type StoredAppEvent } from '../../src/store/index.js'
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/test-database.js'

/**
 * The dispatcher's LISTEN connection (src/store/channel-listener.ts) after its session is terminated: it warns,
 * comes back after 5 s, queues what was committed meanwhile, and sends the next commit's events in place again.
 */
const queue = createBackendQueue<AppEventJobData>(APP_EVENTS_QUEUE, {
  kind: 'redis',
  url: 'redis://127.0.0.1:6379',
  prefix: `test-dispatcher-reconnect-${randomBytes(4).toString('hex')}`,
})
let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase('dispatcher_reconnect')
})

afterAll(async () => {
  await queue.obliterate({ force: true }).catch(() => undefined)
  await queue.close()
  await database?.drop()
})

/** The logger's lines as they are written, and a wait for the first one with a given message. */
function capturedLogger() {
  const stream = new PassThrough()
  const lines: { level: number; msg: string }[] = []
  const waiters: { msg: string; resolve: () => void }[] = []
  stream.on('data', (chunk: Buffer) => {
    for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) {
      const line = JSON.parse(text) as { level: number; msg: string }
      lines.push(line)
      for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve()
    }
  })
  return {
    logger: createLogger({ level: 'info', destination: stream }),
    lines,
    logged: (msg: string) =>
      lines.some((line) => line.msg === msg)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ msg, resolve })),
  }
}

it('warns when its connection is lost, reconnects, queues what came meanwhile and sends in place again', async () => {
  const log = capturedLogger()
  const sent: string[] = []
  let onSent: ((id: string) => void) | undefined
  const dispatcher = await startAppEventDispatcher({
    db: database.db,
    connectionString: TEST_DATABASE_URL,
    schema: database.schema,
    queue,
    clock: systemClock,
    logger: log.logger,
    send: (event: StoredAppEvent) => {
      sent.push(event.id)
      onSent?.(event.id)
      return Promise.resolve()
    },
  })
  try {
    const channel = `${APP_EVENTS_CHANNEL_PREFIX}${createHash('md5').update(database.schema).digest('hex')}`
    const publish = (id: string) =>
      database.db
        .transaction()
        .execute((trx) => publishAppEvents(trx, [{ id, type: 'invoice.paid', data: {} }]))

    const lost = log.logged('app event listener lost its database connection; reconnecting')
    const { rows } = await sql<{ dropped: boolean }>`
      select pg_terminate_backend(pid) as dropped from pg_stat_activity where query = ${`listen ${channel}`}`.execute(
      database.db,
    )
    expect(rows).toEqual([{ dropped: true }])
    await lost
    expect(log.lines.find((line) => line.msg.startsWith('app event listener'))?.level).toBe(40)

    // Committed while nobody listens: its NOTIFY goes nowhere, so the reconnection's requeue queues it.
    await publish('evt_meanwhile')
    await vi.waitFor(async () => expect(await queue.getJob(appEventJobId('evt_meanwhile'))).toBeDefined(), {
      timeout: 15_000,
      interval: 50,
    })

    const sentInPlace = new Promise<void>((resolve) => (onSent = (id) => id === 'evt_after' && resolve()))
    await publish('evt_after')
    await sentInPlace
    expect(sent).toEqual(['evt_after'])
    expect(log.lines.map((line) => line.msg)).not.toContain(
      'app event listener could not reconnect; retrying',
    )
  } finally {
    await dispatcher.close()
  }
})
