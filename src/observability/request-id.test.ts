import { describe, expect, it } from 'vitest'
import { newRequestId, requestIdFrom } from './request-id.js'

describe('request ids', () => {
  it('keeps a plain token the caller sent', () => {
    expect(requestIdFrom('abc-1.2_x')).toBe('abc-1.2_x')
    expect(requestIdFrom('a'.repeat(128))).toBe('a'.repeat(128))
  })

  it('replaces an id that is not a plain token, too long, repeated or absent', () => {
    for (const incoming of ['a b', 'x\r\ny', '"quoted"', 'a'.repeat(129), '', ['a', 'b'], undefined]) {
      const id = requestIdFrom(incoming)
      expect(id).not.toBe(incoming)
      expect(id).toMatch(/^req_[0-9a-f]{12}-[0-9a-z]+$/)
    }
  })

  it('never issues the same id twice', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRequestId()))
    expect(ids.size).toBe(10_000)
  })
})
