import { describe, expect, it } from 'vitest'
import { createListCursorCodec, listFingerprint } from './list-cursor.js'

const codec = createListCursorCodec('things', 'tc_', (key) => key.startsWith('t'))
const fingerprint = listFingerprint('things', { status: 'open', owner: undefined })

describe('list cursors', () => {
  it('give back the key they were made from, for the same list and filters', () => {
    expect(codec.decode(codec.encode('t42', fingerprint), fingerprint)).toEqual({ ok: true, after: 't42' })
  })

  it('refuse a cursor made for other filters', () => {
    const other = listFingerprint('things', { status: 'paid' })
    expect(codec.decode(codec.encode('t42', fingerprint), other)).toEqual({
      ok: false,
      problem: 'other_filters',
    })
  })

  it('refuse another list kind, a foreign prefix, garbage and keys the list never issues', () => {
    const otherKind = createListCursorCodec('others', 'tc_').encode('t42', fingerprint)
    for (const raw of [
      otherKind,
      `xx_${codec.encode('t42', fingerprint).slice(3)}`,
      'tc_%%%',
      codec.encode('u1', fingerprint),
    ])
      expect(codec.decode(raw, fingerprint)).toEqual({ ok: false, problem: 'malformed' })
  })

  it('fingerprint the filters that are set, in any order', () => {
    expect(listFingerprint('l', { a: '1', b: '2' })).toBe(
      listFingerprint('l', { b: '2', a: '1', c: undefined }),
    )
    expect(listFingerprint('l', { a: '1' })).not.toBe(listFingerprint('m', { a: '1' }))
  })
})
