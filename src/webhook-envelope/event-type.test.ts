import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { WebhookEventType } from '../api-client/index.js'
import { EVENT_TYPE_FIELDS } from './event-type.js'
import { interpretEvent, type InterpretedEvent } from './interpret-event.js'
import { UNTYPED_EVENT, parseEnvelope } from './webhook-envelope.js'

const CONN = '6f1c2a4e-0000-4000-8000-00000000c0de'

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
