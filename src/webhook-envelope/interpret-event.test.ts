import { describe, expect, it } from 'vitest'
import { connectionStatusOf, interpretEvent } from './interpret-event.js'

const CONN = '6f1c2a4e-0000-4000-8000-00000000c0de'
const at = '2026-03-02T09:00:00.000Z'

describe('finding the connection of a transactions.sync_available delivery', () => {
  const dialects: Record<string, unknown> = {
    'the seed reading (data.connectionId with entityId)': {
      id: 'evt_1',
      type: 'transactions.sync_available',
      createdAt: at,
      data: { connectionId: CONN, entityId: 'ent-1' },
    },
    'data.connectionId without entityId': {
      id: 'e',
      type: 'transactions.sync_available',
      data: { connectionId: CONN },
    },
    'snake case data.connection_id': {
      id: 'e',
      type: 'transactions.sync_available',
      data: { connection_id: CONN },
    },
    'a nested data.connection.id': {
      id: 'e',
      type: 'transactions.sync_available',
      data: { connection: { id: CONN, status: 'active' } },
    },
    'a Stripe-like data.object.connectionId': {
      id: 'e',
      type: 'transactions.sync_available',
      data: { object: { id: 'sync_9', connectionId: CONN } },
    },
    'data.object.connection.id': {
      id: 'e',
      type: 'transactions.sync_available',
      data: { object: { connection: { id: CONN } } },
    },
    'a top-level connectionId and no data': {
      id: 'e',
      type: 'transactions.sync_available',
      connectionId: CONN,
    },
    'a payload wrapper with eventType': {
      payload: { eventId: 'e', eventType: 'transactions.sync_available', data: { connectionId: CONN } },
    },
    'an event wrapper and upper-case type': {
      event: { id: 'e', type: 'TRANSACTIONS_SYNC_AVAILABLE', connection_id: CONN },
    },
    'the type under event and the id under resource': {
      event: 'transactions.syncAvailable',
      resource: { connectionId: CONN },
    },
    'the type under kind': { kind: 'sync_available', data: { connectionId: ` ${CONN} ` } },
    'the type under topic': { id: 'e', topic: 'transactions.sync_available', data: { connectionId: CONN } },
    'a body wrapper with topic': { body: { topic: 'transactions.sync_available', connection_id: CONN } },
  }
  for (const [dialect, body] of Object.entries(dialects)) {
    it(`reads ${dialect}`, () => {
      expect(interpretEvent(body)).toMatchObject({ kind: 'sync_available', connectionId: CONN })
    })
  }
})

describe('reading a connection.status_changed delivery', () => {
  it('reads every field of the seed reading', () => {
    expect(
      interpretEvent({
        id: 'evt_2',
        type: 'connection.status_changed',
        createdAt: at,
        data: {
          connectionId: CONN,
          entityId: 'ent-1',
          previousStatus: 'active',
          status: 'reauthRequired',
          errorCode: 'credentials_expired',
          errorMessage: 'The password has expired',
        },
      }),
    ).toEqual({
      kind: 'status_changed',
      type: 'connection.status_changed',
      connectionId: CONN,
      status: 'reauthRequired',
      previousStatus: 'active',
      errorCode: 'credentials_expired',
      errorMessage: 'The password has expired',
      occurredAt: at,
    })
  })

  it('leaves out what the event does not say, for the worker to look up', () => {
    expect(interpretEvent({ type: 'connection.status_changed', data: { connectionId: CONN } })).toEqual({
      kind: 'status_changed',
      type: 'connection.status_changed',
      connectionId: CONN,
      status: undefined,
      previousStatus: undefined,
      errorCode: undefined,
      errorMessage: undefined,
      occurredAt: undefined,
    })
  })

  it('keeps an explicit null error apart from a missing one', () => {
    const event = interpretEvent({
      type: 'connection.status_changed',
      data: { connectionId: CONN, status: 'active', errorCode: null },
    })
    expect(event).toMatchObject({ errorCode: null, errorMessage: undefined })
  })

  it('reads a Stripe-like connection object with previous_attributes and Unix seconds', () => {
    const event = interpretEvent({
      id: 'evt_3',
      type: 'connection.status_changed',
      created: Date.parse(at) / 1000,
      data: {
        object: { id: CONN, status: 'REAUTH_REQUIRED', error: { code: 'mfa', message: 'Sign in again' } },
        previous_attributes: { status: 'active' },
      },
    })
    expect(event).toEqual({
      kind: 'status_changed',
      type: 'connection.status_changed',
      connectionId: CONN,
      status: 'reauthRequired',
      previousStatus: 'active',
      errorCode: 'mfa',
      errorMessage: 'Sign in again',
      occurredAt: at,
    })
  })

  it('reads snake case fields and new_status / old_status', () => {
    expect(
      interpretEvent({
        event_type: 'connection_status_changed',
        occurred_at: at,
        data: { connection_id: CONN, new_status: 'invalid_config', old_status: 'active', error_code: 'x' },
      }),
    ).toMatchObject({ status: 'invalidConfig', previousStatus: 'active', errorCode: 'x', occurredAt: at })
  })

  it('treats a status it does not know as missing (the bank is asked)', () => {
    expect(
      interpretEvent({
        type: 'connection.status_changed',
        data: { connectionId: CONN, status: 'suspended' },
      }),
    ).toMatchObject({ kind: 'status_changed', status: undefined })
  })

  it('never takes the envelope id for the connection id', () => {
    expect(
      interpretEvent({ id: 'evt_4', type: 'connection.status_changed', status: 'active' }),
    ).toMatchObject({
      kind: 'uninterpretable',
      problem: 'no_connection_id',
    })
  })
})

describe('what cannot be interpreted', () => {
  it('is a body that is not an object', () => {
    for (const body of [[1, 2], 'text', 42, null, true]) {
      expect(interpretEvent(body)).toMatchObject({ kind: 'uninterpretable', problem: 'not_an_object' })
    }
  })

  it('is an object without an event type, keeping any connection id it names for the safety-net sync', () => {
    expect(interpretEvent({ id: 'e', data: { connectionId: CONN } })).toEqual({
      kind: 'uninterpretable',
      type: null,
      problem: 'no_event_type',
      connectionIds: [CONN],
      detail: expect.stringContaining('No event type'),
    })
    expect(interpretEvent({})).toMatchObject({ problem: 'no_event_type', connectionIds: [] })
  })

  it('is a known event without a connection id', () => {
    expect(interpretEvent({ type: 'transactions.sync_available', data: { entityId: 'ent' } })).toMatchObject({
      kind: 'uninterpretable',
      type: 'transactions.sync_available',
      problem: 'no_connection_id',
      connectionIds: [],
    })
  })

  it('is an event naming two different connections', () => {
    expect(
      interpretEvent({
        type: 'transactions.sync_available',
        connectionId: 'conn-a',
        data: { connectionId: 'conn-b' },
      }),
    ).toMatchObject({ problem: 'ambiguous_connection_id', connectionIds: ['conn-b', 'conn-a'] })
  })

  it('ignores ids that are not one line of text', () => {
    expect(
      interpretEvent({
        type: 'transactions.sync_available',
        data: { connectionId: 'a\nb', connection: { id: 7 } },
      }),
    ).toMatchObject({ problem: 'no_connection_id' })
  })
})

describe('types bankrec does not act on', () => {
  it('acknowledges the test event', () => {
    expect(interpretEvent({ type: 'test', data: {} })).toEqual({ kind: 'test', type: 'test' })
  })

  it('ignores reserved and unknown types without a problem', () => {
    expect(interpretEvent({ type: 'account.created', data: {} })).toEqual({
      kind: 'ignored',
      type: 'account.created',
      reason: 'reserved_type',
    })
    expect(interpretEvent({ type: 'invoice.paid', data: { connectionId: CONN } })).toEqual({
      kind: 'ignored',
      type: 'invoice.paid',
      reason: 'unknown_type',
    })
  })
})

describe('connection statuses', () => {
  it('are read without case or separators', () => {
    expect(connectionStatusOf('pending_activation')).toBe('pendingActivation')
    expect(connectionStatusOf('ACTIVE')).toBe('active')
    expect(connectionStatusOf('gone')).toBeUndefined()
    expect(connectionStatusOf(3)).toBeUndefined()
  })
})
