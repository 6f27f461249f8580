import { describe, expect, it } from 'vitest'
import { parseEnvelope } from './envelope.js'

const base = { id: 'evt_1', createdAt: '2026-03-02T09:00:00.000Z', apiVersion: 'v1' }
const json = (value: unknown) => JSON.stringify(value)

describe('parseEnvelope', () => {
  it('types a known event and keeps unknown fields as delivered', () => {
    const result = parseEnvelope(
      json({
        ...base,
        type: 'transactions.sync_available',
        data: { connectionId: 'c', entityId: 'e' },
        extra: 1,
      }),
    )
    expect(result).toMatchObject({ ok: true, eventId: 'evt_1', type: 'transactions.sync_available' })
    if (!result.ok) throw new Error('expected ok')
    expect(result.known?.type).toBe('transactions.sync_available')
    expect(result.ignored).toBeUndefined()
    expect(result.event.extra).toBe(1)
  })

  it('marks the seed’s reserved types as ignored', () => {
    for (const type of ['account.created', 'account.updated', 'transfer.status_changed']) {
      expect(parseEnvelope(json({ ...base, type, data: {} }))).toMatchObject({
        ok: true,
        ignored: 'reserved_type',
      })
    }
  })

  it('marks unknown types as ignored', () => {
    expect(parseEnvelope(json({ ...base, type: 'invoice.paid', data: {} }))).toMatchObject({
      ok: true,
      ignored: 'unknown_type',
    })
  })

  it('refuses a body that is not JSON', () => {
    expect(parseEnvelope('{"id":')).toMatchObject({ ok: false, code: 'invalid_json' })
    expect(parseEnvelope(new Uint8Array([0xff, 0xfe]))).toMatchObject({ ok: false, code: 'invalid_json' })
  })

  it('refuses an envelope without an id, type, createdAt or data object, naming each problem', () => {
    const result = parseEnvelope(json({ type: 1, data: [] }))
    expect(result).toMatchObject({ ok: false, code: 'invalid_envelope' })
    if (result.ok) throw new Error('expected a problem')
    expect(result.details.map((d) => d.path).sort()).toEqual(['createdAt', 'data', 'id', 'type'])
  })

  it('refuses a JSON value that is not an object', () => {
    expect(parseEnvelope('[1,2]')).toMatchObject({ ok: false, code: 'invalid_envelope' })
    expect(parseEnvelope('null')).toMatchObject({ ok: false, code: 'invalid_envelope' })
  })

  it('refuses a known type whose data does not fit its schema', () => {
    expect(parseEnvelope(json({ ...base, type: 'test', data: {} }))).toMatchObject({
      ok: false,
      code: 'invalid_envelope',
    })
  })
})
