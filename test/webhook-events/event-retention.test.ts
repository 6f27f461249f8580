import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import type { WebhookJob } from '../../src/queue/index.js'
import { resolveException } from '../../src/store/index.js'
import {
  createEventRetention,
  handleWebhookEvent,
  type WebhookEventEffects,
} from '../../src/webhook-events/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

/**
 * Issue 26: processed_events and uninterpretable_events were never pruned. Like received events past the dedupe
 * window, they now go after PROCESSED_EVENTS_RETENTION_DAYS and UNINTERPRETABLE_EVENTS_RETENTION_DAYS (an
 * uninterpretable event only once its exception is resolved), pruned at most once an hour after an event.
 */
const DAY = 24 * 60 * 60
let database: TestDatabase
const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })

const effects: WebhookEventEffects = {
  requestSync: async () => undefined,
  requestSyncOfAll: async () => undefined,
  lookupConnection: async () => null,
  recordConnection: async () => undefined,
  onStatusChanged: async () => undefined,
  onUninterpretable: async () => undefined,
}

const handle = (eventId: string, event: Record<string, unknown>) =>
  handleWebhookEvent(
    database.db,
    { eventId, type: String(event.type), event, receivedAt: clock.now().toISOString() } satisfies WebhookJob,
    effects,
    clock.now(),
  )
const processed = (id: string) => ({ id, type: 'test', createdAt: clock.now().toISOString(), data: {} })
const garbled = (id: string) => ({ id, type: 'transactions.sync_available', data: { nonsense: true } })

const ids = async (table: 'processed_events' | 'uninterpretable_events') =>
  (await database.db.selectFrom(table).select('event_id').orderBy('event_id').execute()).map(
    (r) => r.event_id,
  )

beforeAll(async () => {
  database = await createTestDatabase('event_retention')
})
afterAll(async () => {
  await database?.drop()
})

describe('event record retention', () => {
  it('prunes processed records past their days, and uninterpretable ones past theirs once resolved', async () => {
    const retention = createEventRetention({
      db: database.db,
      clock,
      logger: createLogger({ level: 'silent' }),
      processedDays: 30,
      uninterpretableDays: 90,
    })
    expect(await handle('evt_old', processed('evt_old'))).toBe('processed')
    expect(await handle('evt_bad_resolved', garbled('evt_bad_resolved'))).toBe('uninterpretable')
    expect(await handle('evt_bad_open', garbled('evt_bad_open'))).toBe('uninterpretable')
    await resolveException(database.db, 'uninterpretable_event:evt_bad_resolved', 'looked at', clock.now())

    // Control: a day short of the retention, nothing goes.
    clock.advance(29 * DAY)
    await retention.afterEvent()
    expect(await ids('processed_events')).toEqual(['evt_bad_open', 'evt_bad_resolved', 'evt_old'])

    clock.advance(2 * DAY)
    expect(await handle('evt_new', processed('evt_new'))).toBe('processed')
    await retention.afterEvent()
    expect(await ids('processed_events')).toEqual(['evt_new'])
    expect(await ids('uninterpretable_events')).toEqual(['evt_bad_open', 'evt_bad_resolved'])

    clock.advance(60 * DAY)
    await retention.afterEvent()
    // Past 90 days: the resolved one goes, the open one stays with its exception.
    expect(await ids('uninterpretable_events')).toEqual(['evt_bad_open'])
    expect(await ids('processed_events')).toEqual([])
  })

  it('prunes at most once an interval per process', async () => {
    const retention = createEventRetention({
      db: database.db,
      clock,
      logger: createLogger({ level: 'silent' }),
      processedDays: 7,
      uninterpretableDays: 7,
      everyMs: 3_600_000,
    })
    await retention.afterEvent()
    // An event recorded as processed 8 days ago, right after a prune: the next one is an hour away.
    const eightDaysAgo = new Date(clock.now().getTime() - 8 * DAY * 1000)
    const job = {
      eventId: 'evt_b',
      type: 'test',
      event: processed('evt_b'),
      receivedAt: eightDaysAgo.toISOString(),
    }
    expect(await handleWebhookEvent(database.db, job, effects, eightDaysAgo)).toBe('processed')
    clock.advance(3_599)
    await retention.afterEvent()
    expect(await ids('processed_events')).toEqual(['evt_b'])
    clock.advance(1)
    await retention.afterEvent()
    expect(await ids('processed_events')).toEqual([])
  })
})
