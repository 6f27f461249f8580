import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WebhookJob } from '../../src/queue/index.js'
import { handleWebhookEvent } from '../../src/reconcile/handle-webhook-event.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase('webhook_event')
})
afterAll(async () => {
  await database?.drop()
})

function job(id: string, type: string, data: Record<string, unknown>): WebhookJob {
  return {
    eventId: id,
    type,
    event: { id, type, createdAt: '2026-03-02T09:00:00.000Z', apiVersion: 'v1', data },
    receivedAt: '2026-03-02T09:00:01.000Z',
  }
}

function recorder() {
  const syncs: string[] = []
  const changes: string[] = []
  return {
    syncs,
    changes,
    effects: {
      requestSync: async (connectionId: string, reason: string) =>
        void syncs.push(`${connectionId}:${reason}`),
      onStatusChanged: async (c: { status: string }) => void changes.push(c.status),
    },
  }
}

describe('handling a webhook event', () => {
  it('asks for one sync per transactions.sync_available, however often it is delivered', async () => {
    const r = recorder()
    const event = job('evt_sync_1', 'transactions.sync_available', {
      connectionId: 'conn-1',
      entityId: 'ent-1',
    })
    expect(await handleWebhookEvent(database.db, event, r.effects)).toBe('processed')
    expect(await handleWebhookEvent(database.db, event, r.effects)).toBe('duplicate')
    expect(r.syncs).toEqual(['conn-1:webhook'])
  })

  it('records a status change in the history once and syncs a connection that became active', async () => {
    const r = recorder()
    const event = job('evt_status_1', 'connection.status_changed', {
      connectionId: 'conn-2',
      entityId: 'ent-1',
      previousStatus: 'reauthRequired',
      status: 'active',
      errorCode: null,
      errorMessage: null,
    })
    await handleWebhookEvent(database.db, event, r.effects)
    await handleWebhookEvent(database.db, event, r.effects)
    const history = await database.db
      .selectFrom('connection_status_history')
      .selectAll()
      .where('connection_id', '=', 'conn-2')
      .execute()
    expect(history.map((h) => [h.previous_status, h.status, h.source, h.event_id])).toEqual([
      ['reauthRequired', 'active', 'webhook', 'evt_status_1'],
    ])
    expect(r.changes).toEqual(['active'])
    expect(r.syncs).toEqual(['conn-2:became active'])
  })

  it('acknowledges reserved and unknown types as ignored, with no effect', async () => {
    const r = recorder()
    const reserved = { ...job('evt_acc_1', 'account.created', {}), ignored: 'reserved_type' as const }
    expect(await handleWebhookEvent(database.db, reserved, r.effects)).toBe('ignored')
    expect(await handleWebhookEvent(database.db, job('evt_new_1', 'brand.new_type', {}), r.effects)).toBe(
      'ignored',
    )
    const rows = await database.db
      .selectFrom('processed_events')
      .selectAll()
      .where('event_id', 'in', ['evt_acc_1', 'evt_new_1'])
      .execute()
    expect(rows.map((row) => row.outcome)).toEqual(['ignored', 'ignored'])
    expect(r.syncs).toEqual([])
  })

  it('leaves an event unclaimed when its sync request fails, so the retried job asks again', async () => {
    const asked: string[] = []
    let failNext = true
    const effects = {
      requestSync: async (connectionId: string) => {
        asked.push(connectionId)
        if (failNext) {
          failNext = false
          throw new Error('queue unreachable')
        }
      },
    }
    const event = job('evt_sync_retry', 'transactions.sync_available', {
      connectionId: 'conn-9',
      entityId: 'ent-1',
    })
    await expect(handleWebhookEvent(database.db, event, effects)).rejects.toThrow('queue unreachable')
    expect(await handleWebhookEvent(database.db, event, effects)).toBe('processed')
    expect(await handleWebhookEvent(database.db, event, effects)).toBe('duplicate')
    expect(asked).toEqual(['conn-9', 'conn-9'])
  })
})
