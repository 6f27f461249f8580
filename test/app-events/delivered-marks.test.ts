import { afterAll, beforeAll, expect, it } from 'vitest'
import { createDeliveredMarks, publishAppEvents } from '../../src/app-events/index.js'
import { getAppEvent } from '../../src/store/index.js'
import { recordingDatabase } from '../support/recording-database.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

/**
 * The sends of one commit finish close together; their delivered marks are one statement, not one each: on a busy
 * machine every statement waits for CPU, and a mark per send halved the sends per second (docs/performance.md).
 */
let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase('delivered_marks')
})

afterAll(async () => {
  await database?.drop()
})

const marks = (statements: string[]) => statements.filter((s) => /^update app_events/i.test(s)).length

async function publish(ids: string[]) {
  await database.db.transaction().execute(async (trx) => {
    await publishAppEvents(
      trx,
      ids.map((id) => ({ id, type: 'invoice.paid', data: { invoiceId: id } })),
    )
  })
}

it('stores the marks of sends finished in one turn in one statement, each with its own time', async () => {
  const ids = ['evt_dm_1', 'evt_dm_2', 'evt_dm_3', 'evt_dm_4', 'evt_dm_5']
  await publish(ids)
  const statements: string[] = []
  const mark = createDeliveredMarks(recordingDatabase(database.pool, statements))
  const at = (i: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, i))
  await Promise.all(ids.map((id, i) => mark(id, at(i))))
  expect(marks(statements)).toBe(1)
  for (const [i, id] of ids.entries()) {
    expect(await getAppEvent(database.db, id)).toMatchObject({
      deliveredAt: at(i),
      attempts: 1,
      lastError: null,
    })
  }
})

it('gathers the marks that come while a statement is in flight into the next one', async () => {
  const ids = ['evt_dm_6', 'evt_dm_7', 'evt_dm_8', 'evt_dm_9']
  await publish(ids)
  const statements: string[] = []
  const mark = createDeliveredMarks(recordingDatabase(database.pool, statements))
  const now = new Date()
  const first = mark(ids[0]!, now)
  // One turn later the first statement has started; its answer needs I/O, so it is still in flight.
  await new Promise((resolve) => setImmediate(resolve))
  await Promise.all([first, ...ids.slice(1).map((id) => mark(id, now))])
  expect(marks(statements)).toBe(2)
  for (const id of ids) expect((await getAppEvent(database.db, id))?.deliveredAt).toEqual(now)
})

it('rejects every caller of a statement that failed', async () => {
  const statements: string[] = []
  const mark = createDeliveredMarks(recordingDatabase(database.pool, statements))
  // An id cannot be a time: the statement fails as a whole.
  const failing = mark('evt_dm_x', new Date(Number.NaN))
  const other = mark('evt_dm_y', new Date())
  await expect(failing).rejects.toThrow()
  await expect(other).rejects.toThrow()
})
