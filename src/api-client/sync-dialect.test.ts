import { describe, expect, it } from 'vitest'
import { describeSyncDialect, detectSyncDialect, readSyncEvent, readSyncEvents } from './sync-dialect.js'

const TX = '00000000-0000-4000-8000-000000000001'
const CONNECTION = '11111111-1111-4111-8111-111111111111'
const ACCOUNT = '22222222-2222-4222-8222-222222222222'
const transaction = {
  id: TX,
  connectionId: CONNECTION,
  accountId: ACCOUNT,
  amount: '12.50',
  postedDate: '2026-03-01',
}
const base = { eventId: 'ev-1', eventAt: '2026-03-02T09:00:00.000Z' }

describe('readSyncEvent', () => {
  it.each(['type', 'kind', 'eventType', 'event', 'changeType', 'action'])(
    'finds the kind under %s',
    (field) => {
      const reading = readSyncEvent({ ...base, [field]: 'added', transaction })
      expect(reading).toEqual({ ok: true, change: { ...base, type: 'added', transaction } })
    },
  )

  it.each([
    ['added', 'added'],
    ['created', 'added'],
    ['CREATED', 'added'],
    ['Modified', 'modified'],
    ['updated', 'modified'],
    ['UPDATED', 'modified'],
    ['removed', 'removed'],
    ['deleted', 'removed'],
    ['DELETED', 'removed'],
  ])('reads the kind %s as %s, whatever its case', (value, type) => {
    const reading = readSyncEvent({ ...base, kind: value, transaction })
    expect(reading.ok && reading.change.type).toBe(type)
  })

  it.each([
    ['an embedded transaction', { transaction: { id: TX, connectionId: CONNECTION, accountId: ACCOUNT } }],
    ['a transaction with only its id', { transaction: { id: TX } }],
    ['a bare transactionId', { transactionId: TX }],
    ['a bare id', { id: TX }],
    ['the transaction as a string', { transaction: TX }],
  ])('reads a removed event given as %s', (_shape, fields) => {
    const reading = readSyncEvent({ ...base, changeType: 'DELETED', ...fields })
    expect(reading.ok && reading.change).toMatchObject({ type: 'removed', transaction: { id: TX } })
  })

  it('prefers a bare transactionId over an id that may be the event id', () => {
    const other = '00000000-0000-4000-8000-000000000009'
    const reading = readSyncEvent({ id: other, kind: 'removed', transactionId: TX })
    expect(reading.ok && reading.change.transaction.id).toBe(TX)
  })

  it("uses the dialect's kind field first when an event carries several", () => {
    const event = { type: 'transaction', action: 'updated', kind: 'created', transaction }
    expect(readSyncEvent(event).ok && (readSyncEvent(event) as any).change.type).toBe('added')
    const reading = readSyncEvent(event, { kindField: 'action', casing: 'lowercase', removed: null })
    expect(reading.ok && reading.change.type).toBe('modified')
  })

  it.each([
    ['not_an_object', 'a string', 'just text'],
    ['not_an_object', 'an array', [1, 2]],
    ['no_kind', 'no kind field', { ...base, transaction }],
    ['unknown_kind', 'an unknown kind', { ...base, type: 'split', transaction }],
    ['no_transaction', 'an added event without a transaction', { ...base, type: 'added' }],
    ['no_transaction', 'a removed event naming no id', { ...base, type: 'removed' }],
    [
      'invalid_transaction',
      'an added transaction without ids',
      { ...base, type: 'added', transaction: { amount: '1' } },
    ],
    [
      'invalid_transaction',
      'a removed id that is no UUID',
      { ...base, type: 'removed', transactionId: 'tx_1' },
    ],
  ])('names the problem %s for %s', (problem, _what, raw) => {
    const reading = readSyncEvent(raw)
    expect(reading).toMatchObject({ ok: false, problem, raw })
    expect(reading.ok || reading.detail.length > 0).toBe(true)
  })

  it('keeps the transaction id of an unreadable event that names one, so a later sync can re-read it', () => {
    expect(readSyncEvent({ ...base, type: 'split', transaction })).toMatchObject({
      transactionId: TX,
      eventId: 'ev-1',
    })
    expect(readSyncEvent({ type: 'split', transactionId: 'not-a-uuid' })).toMatchObject({
      transactionId: null,
    })
  })
})

describe('detectSyncDialect', () => {
  it('names the kind field, the casing and the shape of the first removed event', () => {
    const dialect = detectSyncDialect([
      { eventType: 'CREATED', transaction },
      { eventType: 'DELETED', transaction: { id: TX } },
    ])
    expect(dialect).toEqual({
      kindField: 'eventType',
      casing: 'uppercase',
      removed: 'transaction with only id',
    })
    expect(describeSyncDialect(dialect!)).toBe(
      'kind under "eventType", uppercase, removed as transaction with only id',
    )
  })

  it('finds the seed dialect and a bare-id dialect', () => {
    expect(
      detectSyncDialect([{ type: 'removed', transaction: { id: TX, connectionId: CONNECTION } }]),
    ).toEqual({
      kindField: 'type',
      casing: 'lowercase',
      removed: 'embedded transaction',
    })
    expect(
      detectSyncDialect([
        { kind: 'added', transaction },
        { kind: 'deleted', id: TX },
      ]),
    ).toMatchObject({
      kindField: 'kind',
      removed: 'bare id',
    })
  })

  it('finds nothing in a page without a readable kind', () => {
    expect(detectSyncDialect([])).toBeNull()
    expect(detectSyncDialect(['x', { type: 'split' }])).toBeNull()
  })
})

describe('readSyncEvents', () => {
  it('reads the readable events in order and sets the others apart', () => {
    const page = readSyncEvents([
      { kind: 'created', transaction },
      { kind: 'split', transaction },
      { kind: 'deleted', id: TX },
    ])
    expect(page.changes.map((c) => c.type)).toEqual(['added', 'removed'])
    expect(page.unreadable.map((u) => u.problem)).toEqual(['unknown_kind'])
    expect(page.dialect?.kindField).toBe('kind')
  })
})
