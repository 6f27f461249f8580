import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { KnownEvent, WebhookEventType } from '../api-client/index.js'
import { MAX_JSON_DEPTH } from '../storable-json/index.js'
import {
  EVENT_TYPE_FIELDS,
  UNTYPED_EVENT,
  connectionStatusOf,
  interpretEvent,
  parseEnvelope,
  type InterpretedEvent,
} from './webhook-envelope.js'

const base = { id: 'evt_1', createdAt: '2026-03-02T09:00:00.000Z', apiVersion: 'v1' }
const json = (value: unknown) => JSON.stringify(value)

describe('parseEnvelope', () => {
  it('reads the id and type of an envelope in the seed’s reading and keeps it as delivered', () => {
    const result = parseEnvelope(
      json({
        ...base,
        type: 'transactions.sync_available',
        data: { connectionId: 'c', entityId: 'e' },
        extra: 1,
      }),
    )
    expect(result).toMatchObject({
      ok: true,
      eventId: 'evt_1',
      eventIdFrom: 'id',
      type: 'transactions.sync_available',
    })
    if (!result.ok) throw new Error('expected ok')
    expect(result.ignored).toBeUndefined()
    expect(result.event.extra).toBe(1)
  })

  it('accepts a known type whatever the shape of its data: the worker interprets it', () => {
    for (const data of [{ connectionId: 'c' }, { connection: { id: 'c' } }, undefined, [], 'x']) {
      const result = parseEnvelope(json({ id: 'evt_2', type: 'transactions.sync_available', data }))
      expect(result).toMatchObject({ ok: true, eventId: 'evt_2', type: 'transactions.sync_available' })
      expect(result.ok && result.ignored).toBeFalsy()
    }
  })

  it('finds the event id under its alternative names, in the documented order', () => {
    expect(parseEnvelope(json({ eventId: 'e1', type: 'test' }))).toMatchObject({
      eventId: 'e1',
      eventIdFrom: 'eventId',
    })
    expect(parseEnvelope(json({ event_id: 'e2', messageId: 'm' }))).toMatchObject({ eventId: 'e2' })
    expect(parseEnvelope(json({ id: 42, eventId: 'e3' }))).toMatchObject({ eventId: '42', eventIdFrom: 'id' })
    // An unusable id (empty, too long, an object) is skipped for the next name.
    expect(parseEnvelope(json({ id: '', webhookEventId: 'w' }))).toMatchObject({ eventId: 'w' })
    expect(parseEnvelope(json({ id: 'x'.repeat(256), notificationId: 'n' }))).toMatchObject({ eventId: 'n' })
  })

  it('derives a stable id from the signed body when the envelope carries none', () => {
    const body = json({ type: 'test', data: { webhookId: 'wh' }, deliveryId: 'attempt-1' })
    const expected = `body-sha256-${createHash('sha256').update(body).digest('hex')}`
    expect(parseEnvelope(body)).toMatchObject({ ok: true, eventId: expected, eventIdFrom: 'body' })
    expect(parseEnvelope(Buffer.from(body))).toMatchObject({ eventId: expected })
  })

  it('finds the type under its alternative names and queues an untyped event for the worker', () => {
    expect(parseEnvelope(json({ id: 'a', eventType: 'test' }))).toMatchObject({ type: 'test' })
    expect(parseEnvelope(json({ id: 'a', kind: 'connection.status_changed' }))).toMatchObject({
      type: 'connection.status_changed',
    })
    const untyped = parseEnvelope(json({ id: 'a', data: {} }))
    expect(untyped).toMatchObject({ ok: true, type: '(untyped)' })
    expect(untyped.ok && untyped.ignored).toBeFalsy()
  })

  it('marks the seed’s reserved types and unknown types as ignored', () => {
    for (const type of ['account.created', 'account.updated', 'transfer.status_changed']) {
      expect(parseEnvelope(json({ ...base, type, data: {} }))).toMatchObject({
        ok: true,
        ignored: 'reserved_type',
      })
    }
    expect(parseEnvelope(json({ ...base, type: 'invoice.paid' }))).toMatchObject({
      ok: true,
      ignored: 'unknown_type',
    })
  })

  it('reads the type where the worker does: under a wrapper or topic, and aliased, queued as delivered', () => {
    /** Queued under `type`, and not marked ignored. */
    const expectActedOn = (body: unknown, type: string) => {
      const parsed = parseEnvelope(json(body))
      expect(parsed).toMatchObject({ ok: true, type })
      expect(parsed.ok && parsed.ignored).toBeUndefined()
    }
    const data = { connectionId: 'c' }
    expectActedOn(
      { payload: { eventId: 'e', eventType: 'transactions.sync_available', data } },
      'transactions.sync_available',
    )
    expectActedOn({ id: 'a', type: 'Transactions.Sync_Available', data }, 'Transactions.Sync_Available')
    expectActedOn({ id: 'a', topic: 'transactions.sync_available', data }, 'transactions.sync_available')
    // A known type further in wins over an unknown one at the top, as in the worker.
    expectActedOn(
      { id: 'a', type: 'notification', event: { type: 'connection.status_changed' } },
      'connection.status_changed',
    )
    expectActedOn({ id: 'a', type: 'Ping' }, 'Ping')
    expect(parseEnvelope(json({ id: 'a', kind: 'ACCOUNT_CREATED' }))).toMatchObject({
      type: 'ACCOUNT_CREATED',
      ignored: 'reserved_type',
    })
  })

  it('classifies the seed’s own types as the seed does: KnownEvent acted on, the rest of WebhookEventType reserved', () => {
    const known = new Set<string>(KnownEvent.options.map((option) => option.shape.type.value))
    for (const type of WebhookEventType.options) {
      const parsed = parseEnvelope(json({ id: 'a', type }))
      expect(parsed).toMatchObject({ ok: true, type })
      expect(parsed.ok && parsed.ignored).toBe(known.has(type) ? undefined : 'reserved_type')
    }
  })

  it('refuses what cannot be stored, naming the reason', () => {
    expect(parseEnvelope('{"id":')).toMatchObject({ ok: false, code: 'invalid_json' })
    expect(parseEnvelope(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).toMatchObject({
      ok: false,
      code: 'invalid_utf8',
    })
    expect(parseEnvelope('[1,2]')).toMatchObject({ ok: false, code: 'not_an_object' })
    expect(parseEnvelope('null')).toMatchObject({ ok: false, code: 'not_an_object' })
    const nul = parseEnvelope('{"id":"a","data":{"note":"x\\u0000y"}}')
    expect(nul).toMatchObject({ ok: false, code: 'unstorable_text', details: [{ path: 'body.data.note' }] })
    expect(parseEnvelope('{"id":"a","k":"\\ud800"}')).toMatchObject({ ok: false, code: 'unstorable_text' })
  })

  it('refuses a body nested deeper than the cap and accepts one at the cap', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`
    expect(parseEnvelope(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true })
    expect(parseEnvelope(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ ok: false, code: 'too_deep' })
    expect(parseEnvelope(`{"id":"a","deep":${'['.repeat(5000)}${']'.repeat(5000)}}`)).toMatchObject({
      ok: false,
      code: 'too_deep',
    })
    // Brackets inside strings are text, not nesting.
    expect(parseEnvelope(json({ id: 'a', note: '['.repeat(500) + '\\"{' }))).toMatchObject({ ok: true })
  })
})

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

describe('the door and the worker read one type', () => {
  /** The door's reading of a body next to the worker's: the same type, and ignored exactly when the worker ignores. */
  function expectAgreement(body: Record<string, unknown>): InterpretedEvent {
    const parsed = parseEnvelope(JSON.stringify(body))
    if (!parsed.ok) throw new Error(parsed.message)
    const read = interpretEvent(parsed.event)
    expect(parsed.type).toBe(read.type ?? UNTYPED_EVENT)
    expect(parsed.ignored).toBe(read.kind === 'ignored' ? read.reason : undefined)
    return read
  }

  const data = { connectionId: CONN }
  const table: [string, Record<string, unknown>, InterpretedEvent['kind']][] = [
    ['the seed reading', { id: 'e', type: 'transactions.sync_available', data }, 'sync_available'],
    ['a status change', { id: 'e', type: 'connection.status_changed', data }, 'status_changed'],
    ['the test event', { id: 'e', type: 'test', data: { webhookId: 'wh' } }, 'test'],
    ['a ping', { eventType: 'PING' }, 'test'],
    ['a reserved type', { id: 'e', type: 'account.created', data: {} }, 'ignored'],
    ['a reserved type in capitals', { event_type: 'TRANSFER_STATUS_CHANGED' }, 'ignored'],
    ['an unknown type', { id: 'e', type: 'invoice.paid', data }, 'ignored'],
    ['no type', { id: 'e', data }, 'uninterpretable'],
    ['a type that is not a string', { id: 'e', type: 7, kind: ['test'], data }, 'uninterpretable'],
    ['a blank type', { id: 'e', type: '  ', data }, 'uninterpretable'],
    [
      'a known type without a connection',
      { id: 'e', type: 'transactions.sync_available' },
      'uninterpretable',
    ],
    ['the type under topic', { id: 'e', topic: 'transactions.sync_available', data }, 'sync_available'],
    ['an unknown type under topic', { id: 'e', topic: 'billing.invoice_paid', data }, 'ignored'],
    ['a payload wrapper', { payload: { eventType: 'transactions.sync_available', data } }, 'sync_available'],
    [
      'an event wrapper',
      { event: { type: 'CONNECTION_STATUS_CHANGED', connection_id: CONN } },
      'status_changed',
    ],
    ['a body wrapper with a reserved type', { body: { kind: 'account.updated' } }, 'ignored'],
    ['an aliased type', { id: 'e', type: 'Transactions.Sync_Available', data }, 'sync_available'],
    ['the type under event', { event: 'transactions.syncAvailable', resource: data }, 'sync_available'],
    [
      'an unknown type at the top and a known one in a wrapper',
      { type: 'notification', payload: { type: 'transactions.sync_available', data } },
      'sync_available',
    ],
    ['a blank type at the top and the test event in a wrapper', { type: '', body: { type: 'test' } }, 'test'],
  ]
  for (const [name, body, kind] of table) {
    it(`agrees on ${name}`, () => {
      expect(expectAgreement(body).kind).toBe(kind)
    })
  }

  it('agrees on any envelope built from the type fields, wrappers and plausible values', () => {
    const typeValue = fc.oneof(
      fc.constantFrom<unknown>(
        ...WebhookEventType.options,
        'invoice.paid',
        'Transactions.Sync_Available',
        'CONNECTION_STATUS_CHANGED',
        'ping',
        'sync_available',
        '',
        '  ',
        7,
        null,
        ['test'],
        { type: 'test' },
      ),
      fc.string(),
    )
    const fields = fc.dictionary(fc.constantFrom<string>(...EVENT_TYPE_FIELDS), typeValue, { maxKeys: 4 })
    const envelope = fc.record({
      top: fields,
      wrapper: fc.option(fc.constantFrom('payload', 'event', 'body'), { nil: undefined }),
      inner: fields,
      data: fc.option(fc.constant(data), { nil: undefined }),
    })
    fc.assert(
      fc.property(envelope, ({ top, wrapper, inner, data: withData }) => {
        const body: Record<string, unknown> = { id: 'e', ...top, ...(withData ? { data: withData } : {}) }
        if (wrapper) body[wrapper] = inner
        expectAgreement(body)
      }),
      { numRuns: 500 },
    )
  })
})
