import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresWebhookEventQueue, type WebhookJob } from '../../src/queue/index.js'
import { TEST_DATABASE_URL, createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('pg_event_queue')
})
afterAll(async () => {
  await database?.drop()
})

function job(id: string): WebhookJob {
  return {
    eventId: id,
    type: 'test',
    event: { id, type: 'test', createdAt: '2026-03-02T09:00:00.000Z', data: { webhookId: 'wh_1' } },
    receivedAt: '2026-03-02T09:00:01.000Z',
  }
}

describe('webhook event queue on PostgreSQL', () => {
  it('answers queued once per event id and duplicate for every redelivery, in the same batch or later', async () => {
    const queue = createPostgresWebhookEventQueue({
      db: database.db,
      backend: { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: `${database.schema}_queue` },
    })
    try {
      expect(await queue.addBatch([job('evt_a'), job('evt_b'), job('evt_a')])).toEqual([
        'queued',
        'queued',
        'duplicate',
      ])
      expect(await queue.addBatch([job('evt_b'), job('evt_c')])).toEqual(['duplicate', 'queued'])
      await expect(queue.ping()).resolves.toBeUndefined()
    } finally {
      await queue.close()
      await database.db.schema.dropSchema(`${database.schema}_queue`).ifExists().cascade().execute()
    }
  })
})
