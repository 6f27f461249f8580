import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Connection } from '../../src/api-client/index.js'
import type { WebhookJob } from '../../src/queue/index.js'
import {
  handleWebhookEvent,
  type WebhookEventEffects,
} from '../../src/webhook-events/handle-webhook-event.js'
import { observeConnection } from '../../src/store/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let database: TestDatabase
const NOW = new Date('2026-03-02T09:00:05.000Z')

function connection(id: string, status: Connection['status'], extra: Partial<Connection> = {}): Connection {
  return {
    id,
    entityId: 'ent-1',
    kind: 'ready',
    status,
    institutionId: 'inst-1',
    institutionName: 'Harbor National',
    portalUrl: null,
    errorCode: null,
    errorMessage: null,
    syncStatus: 'idle',
    lastSyncedAt: null,
    createdAt: '2026-03-01T09:00:00.000Z',
    updatedAt: '2026-03-01T09:00:00.000Z',
    ...extra,
  } as Connection
}

beforeAll(async () => {
  database = await createTestDatabase('webhook_event')
  for (const id of ['conn-1', 'conn-2', 'conn-9', 'conn-m']) {
    await observeConnection(database.db, connection(id, 'active'), 'poll', NOW)
  }
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

function raw(id: string, event: unknown): WebhookJob {
  return {
    eventId: id,
    type: 'unknown',
    event: event as Record<string, unknown>,
    receivedAt: NOW.toISOString(),
  }
}

/** The effects as plain records; `bank` is what a GET of a connection answers (absent: 404). */
function recorder(bank: Record<string, Connection> = {}) {
  const calls = {
    syncs: [] as string[],
    syncAll: [] as string[],
    changes: [] as Array<{ status: string; previousStatus: string | null; errorCode: string | null }>,
    lookups: [] as string[],
    recorded: [] as string[],
    alerts: [] as Array<{ problem: string; eventId: string }>,
  }
  const effects: WebhookEventEffects = {
    requestSync: async (connectionId, reason) => void calls.syncs.push(`${connectionId}:${reason}`),
    requestSyncOfAll: async (reason) => void calls.syncAll.push(reason),
    lookupConnection: async (connectionId) => {
      calls.lookups.push(connectionId)
      return bank[connectionId] ?? null
    },
    recordConnection: async (c) => {
      calls.recorded.push(`${c.id}:${c.status}`)
      await observeConnection(database.db, c, 'poll', NOW)
    },
    onStatusChanged: async (c) => void calls.changes.push(c),
    onUninterpretable: async (e) => void calls.alerts.push({ problem: e.problem, eventId: e.eventId }),
  }
  return { ...calls, effects }
}

const handle = (event: WebhookJob, effects: WebhookEventEffects) =>
  handleWebhookEvent(database.db, event, effects, NOW)

async function uninterpretableRow(eventId: string) {
  return database.db
    .selectFrom('uninterpretable_events')
    .selectAll()
    .where('event_id', '=', eventId)
    .executeTakeFirst()
}

async function exceptionOf(eventId: string) {
  return database.db
    .selectFrom('match_exceptions')
    .selectAll()
    .where('key', '=', `uninterpretable_event:${eventId}`)
    .executeTakeFirst()
}

describe('handling a webhook event', () => {
  it('asks for one sync per transactions.sync_available, however often it is delivered', async () => {
    const r = recorder()
    const event = job('evt_sync_1', 'transactions.sync_available', {
      connectionId: 'conn-1',
      entityId: 'ent-1',
    })
    expect(await handle(event, r.effects)).toBe('processed')
    expect(await handle(event, r.effects)).toBe('duplicate')
    expect(r.syncs).toEqual(['conn-1:webhook'])
    expect(r.lookups).toEqual([])
  })

  it('syncs on a sync_available that carries only the connection id, in any plausible place', async () => {
    const r = recorder()
    expect(
      await handle(job('evt_sync_2', 'transactions.sync_available', { connectionId: 'conn-1' }), r.effects),
    ).toBe('processed')
    expect(
      await handle(
        raw('evt_sync_3', { type: 'transactions.sync_available', connection_id: 'conn-2' }),
        r.effects,
      ),
    ).toBe('processed')
    expect(r.syncs).toEqual(['conn-1:webhook', 'conn-2:webhook'])
  })

  it('asks the bank once about a connection the mirror does not know yet, mirrors it and syncs it', async () => {
    const r = recorder({ 'conn-new': connection('conn-new', 'active') })
    expect(
      await handle(
        job('evt_sync_new', 'transactions.sync_available', { connectionId: 'conn-new' }),
        r.effects,
      ),
    ).toBe('processed')
    expect(r.lookups).toEqual(['conn-new'])
    expect(r.recorded).toEqual(['conn-new:active'])
    expect(r.syncs).toEqual(['conn-new:webhook'])
  })

  it('queues no sync for an id the bank does not know: it is recorded, alerted and the safety net syncs all', async () => {
    const r = recorder()
    expect(
      await handle(
        job('evt_sync_ghost', 'transactions.sync_available', { connectionId: 'conn-ghost' }),
        r.effects,
      ),
    ).toBe('uninterpretable')
    expect(r.syncs).toEqual([])
    expect(r.syncAll).toEqual(['uninterpretable event'])
    expect(r.alerts).toEqual([{ problem: 'unknown_connection', eventId: 'evt_sync_ghost' }])
    expect(await uninterpretableRow('evt_sync_ghost')).toMatchObject({ problem: 'unknown_connection' })
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
    await handle(event, r.effects)
    await handle(event, r.effects)
    const history = await database.db
      .selectFrom('connection_status_history')
      .selectAll()
      .where('connection_id', '=', 'conn-2')
      .where('source', '=', 'webhook')
      .execute()
    expect(history.map((h) => [h.previous_status, h.status, h.source, h.event_id])).toEqual([
      ['reauthRequired', 'active', 'webhook', 'evt_status_1'],
    ])
    expect(r.changes.map((c) => c.status)).toEqual(['active'])
    expect(r.syncs).toEqual(['conn-2:became active'])
  })

  it('takes a missing previous status from the mirror and missing error fields from the bank', async () => {
    const expired = connection('conn-m', 'reauthRequired', {
      errorCode: 'credentials_expired',
      errorMessage: 'The password has expired',
    })
    const r = recorder({ 'conn-m': expired })
    const event = raw('evt_status_2', {
      eventType: 'CONNECTION_STATUS_CHANGED',
      payload: { connection: { id: 'conn-m' }, status: 'REAUTH_REQUIRED' },
    })
    expect(await handle(event, r.effects)).toBe('processed')
    expect(r.changes).toEqual([
      expect.objectContaining({
        status: 'reauthRequired',
        previousStatus: 'active',
        errorCode: 'credentials_expired',
        errorMessage: 'The password has expired',
        occurredAt: NOW.toISOString(),
      }),
    ])
    expect(r.syncs).toEqual([])
  })

  it('keeps an error field the event gave as null while looking up the one it left out', async () => {
    const expired = connection('conn-m', 'reauthRequired', {
      errorCode: 'credentials_expired',
      errorMessage: 'Expired',
    })
    const r = recorder({ 'conn-m': expired })
    const event = job('evt_status_4', 'connection.status_changed', {
      connectionId: 'conn-m',
      status: 'reauthRequired',
      errorCode: null,
    })
    expect(await handle(event, r.effects)).toBe('processed')
    expect(r.changes).toEqual([expect.objectContaining({ errorCode: null, errorMessage: 'Expired' })])
  })

  it('reads the status from the bank when the event does not give one it knows', async () => {
    const r = recorder({
      'conn-9': connection('conn-9', 'active', { updatedAt: '2026-03-02T08:00:00.000Z' }),
    })
    const event = job('evt_status_3', 'connection.status_changed', {
      connectionId: 'conn-9',
      status: 'RECOVERED',
    })
    expect(await handle(event, r.effects)).toBe('processed')
    expect(r.recorded).toEqual(['conn-9:active'])
    expect(r.changes).toEqual([])
    expect(r.syncs).toEqual(['conn-9:became active'])
  })

  it('acknowledges test, reserved and unknown types as processed or ignored, with no effect', async () => {
    const r = recorder()
    const reserved = { ...job('evt_acc_1', 'account.created', {}), ignored: 'reserved_type' as const }
    expect(await handle(reserved, r.effects)).toBe('ignored')
    expect(await handle(job('evt_new_1', 'brand.new_type', {}), r.effects)).toBe('ignored')
    expect(await handle(job('evt_test_1', 'test', { webhookId: 'wh' }), r.effects)).toBe('processed')
    const rows = await database.db
      .selectFrom('processed_events')
      .select(['event_id', 'outcome'])
      .where('event_id', 'in', ['evt_acc_1', 'evt_new_1', 'evt_test_1'])
      .orderBy('event_id')
      .execute()
    expect(rows.map((row) => row.outcome)).toEqual(['ignored', 'ignored', 'processed'])
    expect(r.syncs).toEqual([])
    expect(r.syncAll).toEqual([])
    expect(r.alerts).toEqual([])
  })

  it('leaves an event unclaimed when its sync request fails, so the retried job asks again', async () => {
    const r = recorder()
    let failNext = true
    const effects: WebhookEventEffects = {
      ...r.effects,
      requestSync: async (connectionId, reason) => {
        await r.effects.requestSync(connectionId, reason)
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
    await expect(handle(event, effects)).rejects.toThrow('queue unreachable')
    expect(await handle(event, effects)).toBe('processed')
    expect(await handle(event, effects)).toBe('duplicate')
    expect(r.syncs).toEqual(['conn-9:webhook', 'conn-9:webhook'])
  })
})

describe('an event that cannot be interpreted', () => {
  it('is recorded with its body and an open uninterpretable_event exception, alerted and answered by a sync of all', async () => {
    const r = recorder()
    const body = { id: 'evt_odd_1', what: 'happened', nested: { deep: [1, 2, 3] } }
    expect(await handle(raw('evt_odd_1', body), r.effects)).toBe('uninterpretable')
    expect(await handle(raw('evt_odd_1', body), r.effects)).toBe('duplicate')
    const row = await uninterpretableRow('evt_odd_1')
    expect(row).toMatchObject({ type: null, problem: 'no_event_type', connection_ids: [] })
    expect(JSON.parse(row!.body)).toEqual(body)
    const exception = await exceptionOf('evt_odd_1')
    expect(exception).toMatchObject({
      type: 'uninterpretable_event',
      resolved_at: null,
      transaction_id: null,
    })
    expect(exception!.details.reasons.join(' ')).toMatch(/evt_odd_1 could not be interpreted: No event type/)
    expect(r.alerts).toEqual([{ problem: 'no_event_type', eventId: 'evt_odd_1' }])
    expect(r.syncAll).toEqual(['uninterpretable event'])
    expect(r.syncs).toEqual([])
    const claimed = await database.db
      .selectFrom('processed_events')
      .select('outcome')
      .where('event_id', '=', 'evt_odd_1')
      .executeTakeFirst()
    expect(claimed?.outcome).toBe('uninterpretable')
  })

  it('syncs only the known connections it names, never an id the bank does not know', async () => {
    const r = recorder()
    const body = {
      id: 'evt_odd_2',
      type: 'transactions.sync_available',
      connectionId: 'conn-1',
      data: { connectionId: 'conn-ghost' },
    }
    expect(await handle(raw('evt_odd_2', body), r.effects)).toBe('uninterpretable')
    expect(r.syncs).toEqual(['conn-1:uninterpretable event'])
    expect(r.syncAll).toEqual([])
    expect(await uninterpretableRow('evt_odd_2')).toMatchObject({
      problem: 'ambiguous_connection_id',
      connection_ids: ['conn-ghost', 'conn-1'],
    })
  })

  it('copes with a body that is not an object', async () => {
    const r = recorder()
    expect(await handle(raw('evt_odd_3', [1, 'two']), r.effects)).toBe('uninterpretable')
    expect(JSON.parse((await uninterpretableRow('evt_odd_3'))!.body)).toEqual([1, 'two'])
    expect(r.alerts).toEqual([{ problem: 'not_an_object', eventId: 'evt_odd_3' }])
  })
})
