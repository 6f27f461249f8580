import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../canonical-json/index.js'
import { auditEntryHash, GENESIS_HASH } from './audit-hash.js'

describe('audit entry hash', () => {
  it('is sha256 of the previous hash and the canonical entry', () => {
    const entry = {
      seq: '1',
      at: '2026-03-02T09:00:00.000Z',
      actor: 'engine',
      action: 'a',
      entity: 'e',
      entityId: 'i',
      payload: { x: '1' },
    }
    const expected = createHash('sha256')
      .update(GENESIS_HASH + canonicalJson(entry))
      .digest('hex')
    expect(auditEntryHash(GENESIS_HASH, entry)).toBe(expected)
    expect(auditEntryHash(GENESIS_HASH, { ...entry, payload: { x: '2' } })).not.toBe(expected)
  })
})

describe('the actor role in the hash', () => {
  const entry = {
    seq: '7',
    at: '2026-03-02T09:00:00.000Z',
    actor: 'alice',
    action: 'manual_match.created',
    entity: 'transaction',
    entityId: 't',
    payload: {},
  }

  it('leaves an entry without a role hashed exactly as before roles existed', () => {
    expect(auditEntryHash(GENESIS_HASH, { ...entry, actorRole: undefined })).toBe(
      auditEntryHash(GENESIS_HASH, entry),
    )
  })

  it('makes the role part of what a new entry hashes', () => {
    const clerk = auditEntryHash(GENESIS_HASH, { ...entry, actorRole: 'clerk' })
    expect(clerk).not.toBe(auditEntryHash(GENESIS_HASH, entry))
    expect(clerk).not.toBe(auditEntryHash(GENESIS_HASH, { ...entry, actorRole: 'admin' }))
  })
})
