import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import {
  publishAppEvents,
  startAppEventDispatcher,
  type AppEventDispatcher,
} from '../../src/app-events/index.js'
import { systemClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import { APP_EVENTS_QUEUE, createBackendQueue, type AppEventJobData } from '../../src/queue/index.js'
import type { StoredAppEvent } from '../../src/store/index.js'
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/test-database.js'

/**
 * Every worker process hears a commit's NOTIFYs. The first to lease used to take the whole commit and queue its
 * sends behind its own, while the others sat idle; now each leases what it has room to send, and the rest is
 * left to the others (docs/performance.md, End-to-end latency).
 */
const logger = createLogger({ level: 'silent' })
const queue = createBackendQueue<AppEventJobData>(APP_EVENTS_QUEUE, {
  kind: 'redis',
  url: 'redis://127.0.0.1:6379',
  prefix: `test-dispatcher-sharing-${randomBytes(4).toString('hex')}`,
})
let database: TestDatabase
const dispatchers: AppEventDispatcher[] = []

beforeAll(async () => {
  database = await createTestDatabase('dispatcher_sharing')
})

afterAll(async () => {
  for (const dispatcher of dispatchers) await dispatcher.close()
  await queue.obliterate({ force: true }).catch(() => undefined)
  await queue.close()
  await database?.drop()
})

/** A process's sender whose sends finish only when the test lets them. */
function heldSender() {
  const started: string[] = []
  const waiting: Array<() => void> = []
  let wake: (() => void) | undefined
  return {
    started,
    send: (event: StoredAppEvent) =>
      new Promise<void>((resolve) => {
        started.push(event.id)
        waiting.push(resolve)
        wake?.()
      }),
    /** Resolves once `count` sends have started. */
    async startedAtLeast(count: number) {
      while (started.length < count) await new Promise<void>((resolve) => (wake = resolve))
    },
    finishAll() {
      for (const resolve of waiting.splice(0)) resolve()
    },
  }
}

it('shares one commit’s events between the processes that heard it, each sending each event once', async () => {
  const senders = [heldSender(), heldSender()]
  for (const sender of senders) {
    dispatchers.push(
      await startAppEventDispatcher({
        db: database.db,
        connectionString: TEST_DATABASE_URL,
        schema: database.schema,
        queue,
        clock: systemClock,
        logger,
        send: sender.send,
        concurrency: 1,
      }),
    )
  }
  const ids = ['evt_share_1', 'evt_share_2', 'evt_share_3', 'evt_share_4']
  await database.db.transaction().execute((trx) =>
    publishAppEvents(
      trx,
      ids.map((id) => ({ id, type: 'invoice.paid', data: {} })),
    ),
  )
  // With one send at a time, a process leases two (the one it sends and the next), so the other process, told the
  // same four ids, gets the rest: both send while neither has finished a send. (Before, the first to lease took all
  // four and the second never sent.)
  await senders[0]!.startedAtLeast(1)
  await senders[1]!.startedAtLeast(1)
  expect(senders.map((sender) => sender.started.length)).toEqual([1, 1])
  await vi.waitFor(
    () => {
      for (const sender of senders) sender.finishAll()
      expect(senders[0]!.started.length + senders[1]!.started.length).toBe(4)
    },
    { timeout: 10_000, interval: 10 },
  )
  for (const sender of senders) sender.finishAll()
  expect([...senders[0]!.started, ...senders[1]!.started].sort()).toEqual(ids)
})
