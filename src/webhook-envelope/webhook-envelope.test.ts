import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KnownEvent, WebhookEventType } from '../api-client/index.js'
import { MAX_JSON_DEPTH } from '../storable-json/index.js'
import { parseEnvelope } from './webhook-envelope.js'

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
