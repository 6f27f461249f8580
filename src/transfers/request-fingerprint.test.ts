import { describe, expect, it } from 'vitest'
import { requestFingerprint } from './request-fingerprint.js'

describe('requestFingerprint', () => {
  it('is the same for the same request whatever the key order', () => {
    expect(requestFingerprint({ a: 1, b: { c: '2', d: [1, { e: 3, f: 4 }] } })).toBe(
      requestFingerprint({ b: { d: [1, { f: 4, e: 3 }], c: '2' }, a: 1 }),
    )
  })

  it('ignores members that are undefined, as JSON does', () => {
    expect(requestFingerprint({ a: 1, memo: undefined })).toBe(requestFingerprint({ a: 1 }))
  })

  it('differs when any value differs', () => {
    expect(requestFingerprint({ amount: { value: '10.00' } })).not.toBe(
      requestFingerprint({ amount: { value: '10.0' } }),
    )
    expect(requestFingerprint({ memo: null })).not.toBe(requestFingerprint({}))
  })
})
