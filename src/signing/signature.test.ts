import { createHmac } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  SignatureVerificationError,
  signPayload,
  verifySignature,
  type SignatureFailureReason,
  type VerifySignatureParams,
} from './signature.js'

const SECRET = 'whsec_test_3f9a1c'
const NOW = new Date('2026-03-02T09:00:00Z')
const T = Math.floor(NOW.getTime() / 1000)

function reasonOf(params: VerifySignatureParams): SignatureFailureReason | 'ok' {
  try {
    verifySignature(params)
    return 'ok'
  } catch (error) {
    if (error instanceof SignatureVerificationError) return error.reason
    throw error
  }
}

const body = fc.uint8Array({ minLength: 1, maxLength: 512 })
const secret = fc.string({ minLength: 1, maxLength: 64 })

describe('verifySignature', () => {
  it('accepts a delivery signed with node:crypto directly, not with signPayload', () => {
    const payload =
      '{"id":"evt_1","type":"test","createdAt":"2026-03-02T09:00:00.000Z","data":{"webhookId":"wh_1"}}'
    const digest = createHmac('sha256', SECRET).update(`${T}.${payload}`, 'utf8').digest('hex')
    expect(verifySignature({ payload, header: `t=${T},v1=${digest}`, secrets: [SECRET], now: NOW })).toEqual({
      timestamp: T,
      secretIndex: 0,
    })
  })

  it('accepts the same body as a string or as bytes', () => {
    fc.assert(
      fc.property(fc.string(), secret, (text, key) => {
        const header = signPayload({ payload: text, secret: key, timestamp: T })
        const bytes = new TextEncoder().encode(text)
        expect(reasonOf({ payload: text, header, secrets: [key], now: NOW })).toBe('ok')
        expect(reasonOf({ payload: bytes, header, secrets: [key], now: NOW })).toBe('ok')
      }),
    )
  })

  it('rejects a body changed in any byte', () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 1, max: 255 }), secret, (bytes, at, flip, key) => {
        const header = signPayload({ payload: bytes, secret: key, timestamp: T })
        const changed = Uint8Array.from(bytes)
        changed[at % changed.length]! ^= flip
        expect(reasonOf({ payload: changed, header, secrets: [key], now: NOW })).toBe('signature_mismatch')
      }),
    )
  })

  it('rejects a header changed in any character', () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 32, max: 126 }), secret, (bytes, at, code, key) => {
        const header = signPayload({ payload: bytes, secret: key, timestamp: T })
        const index = at % header.length
        const replacement = String.fromCharCode(code)
        fc.pre(header[index] !== replacement)
        const changed = header.slice(0, index) + replacement + header.slice(index + 1)
        expect(reasonOf({ payload: bytes, header: changed, secrets: [key], now: NOW })).not.toBe('ok')
      }),
    )
  })

  describe('tolerance', () => {
    it('accepts timestamps up to the tolerance away, in the past and in the future', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 86_400 }), fc.boolean(), fc.nat(), (tolerance, future, d) => {
          const offset = (d % (tolerance + 1)) * (future ? 1 : -1)
          const header = signPayload({ payload: 'x', secret: SECRET, timestamp: T + offset })
          expect(
            reasonOf({ payload: 'x', header, secrets: [SECRET], toleranceSeconds: tolerance, now: NOW }),
          ).toBe('ok')
        }),
      )
    })

    it('rejects timestamps one second beyond the tolerance, in the past and in the future', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 86_400 }), fc.boolean(), (tolerance, future) => {
          const offset = (tolerance + 1) * (future ? 1 : -1)
          const header = signPayload({ payload: 'x', secret: SECRET, timestamp: T + offset })
          expect(
            reasonOf({ payload: 'x', header, secrets: [SECRET], toleranceSeconds: tolerance, now: NOW }),
          ).toBe('timestamp_outside_tolerance')
        }),
      )
    })

    it('uses 300 seconds when no tolerance is given', () => {
      const at = (offset: number) => signPayload({ payload: 'x', secret: SECRET, timestamp: T + offset })
      expect(reasonOf({ payload: 'x', header: at(-300), secrets: [SECRET], now: NOW })).toBe('ok')
      expect(reasonOf({ payload: 'x', header: at(300), secrets: [SECRET], now: NOW })).toBe('ok')
      expect(reasonOf({ payload: 'x', header: at(-301), secrets: [SECRET], now: NOW })).toBe(
        'timestamp_outside_tolerance',
      )
      expect(reasonOf({ payload: 'x', header: at(301), secrets: [SECRET], now: NOW })).toBe(
        'timestamp_outside_tolerance',
      )
    })
  })

  describe('rotation with two secrets', () => {
    it('accepts a delivery signed with either secret and reports which one matched', () => {
      fc.assert(
        fc.property(body, secret, secret, fc.boolean(), (bytes, newest, previous, useNewest) => {
          fc.pre(newest !== previous)
          const header = signPayload({ payload: bytes, secret: useNewest ? newest : previous, timestamp: T })
          const result = verifySignature({ payload: bytes, header, secrets: [newest, previous], now: NOW })
          expect(result.secretIndex).toBe(useNewest ? 0 : 1)
        }),
      )
    })

    it('accepts a header carrying one v1 per secret while the sender rotates', () => {
      const oldSig = signPayload({ payload: 'x', secret: 'old', timestamp: T }).split(',')[1]
      const header = `${signPayload({ payload: 'x', secret: 'new', timestamp: T })},${oldSig}`
      expect(verifySignature({ payload: 'x', header, secrets: ['old'], now: NOW }).secretIndex).toBe(0)
      expect(verifySignature({ payload: 'x', header, secrets: ['new', 'old'], now: NOW }).secretIndex).toBe(0)
    })

    it('rejects a delivery signed with a third secret', () => {
      fc.assert(
        fc.property(body, secret, secret, secret, (bytes, a, b, other) => {
          fc.pre(other !== a && other !== b)
          const header = signPayload({ payload: bytes, secret: other, timestamp: T })
          expect(reasonOf({ payload: bytes, header, secrets: [a, b], now: NOW })).toBe('signature_mismatch')
        }),
      )
    })
  })

  it('reaches every failure reason', () => {
    const good = signPayload({ payload: 'x', secret: SECRET, timestamp: T })
    const cases: [SignatureFailureReason, VerifySignatureParams][] = [
      ['missing_header', { payload: 'x', header: undefined, secrets: [SECRET], now: NOW }],
      ['malformed_header', { payload: 'x', header: 'v1=abc', secrets: [SECRET], now: NOW }],
      ['no_signature', { payload: 'x', header: `t=${T},v0=deadbeef`, secrets: [SECRET], now: NOW }],
      [
        'timestamp_outside_tolerance',
        { payload: 'x', header: good, secrets: [SECRET], now: new Date(NOW.getTime() + 3_600_000) },
      ],
      ['signature_mismatch', { payload: 'y', header: good, secrets: [SECRET], now: NOW }],
      ['parsed_body', { payload: { id: 'evt_1' }, header: good, secrets: [SECRET], now: NOW }],
      ['no_secret', { payload: 'x', header: good, secrets: [], now: NOW }],
    ]
    for (const [reason, params] of cases) expect(reasonOf(params)).toBe(reason)
  })

  it('tells the developer to pass the raw body when given a parsed object', () => {
    expect(() => verifySignature({ payload: {}, header: 't=1,v1=00', secrets: [SECRET] })).toThrow(
      /raw.*body/i,
    )
  })

  it('never names a secret in its messages', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 12 }), fc.string(), (key, header) => {
        try {
          verifySignature({ payload: 'x', header, secrets: [key], now: NOW })
        } catch (error) {
          expect((error as Error).message).not.toContain(key)
        }
      }),
    )
  })

  it('throws nothing but SignatureVerificationError, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.oneof(fc.anything(), fc.string(), fc.array(fc.string())),
        fc.oneof(fc.anything(), fc.array(fc.anything())),
        fc.anything(),
        fc.oneof(fc.anything(), fc.date({ noInvalidDate: false })),
        (payload, header, secrets, toleranceSeconds, now) => {
          try {
            verifySignature({ payload, header, secrets, toleranceSeconds, now } as VerifySignatureParams)
          } catch (error) {
            expect(error).toBeInstanceOf(SignatureVerificationError)
          }
        },
      ),
      { numRuns: 2_000 },
    )
  })
})

describe('signPayload', () => {
  it('produces t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.{}`).digest('hex')
    expect(signPayload({ payload: '{}', secret: SECRET, timestamp: T })).toBe(`t=${T},v1=${expected}`)
  })

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signPayload({ payload: '{}', secret: SECRET, timestamp: 1.5 })).toThrow(RangeError)
  })
})
