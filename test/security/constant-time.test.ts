import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createHmac } from 'node:crypto'
import type * as Crypto from 'node:crypto'
import express from 'express'
import request from 'supertest'
import { beforeEach, describe, expect, it, vi } from 'vitest'

/** Every timingSafeEqual the code under test makes goes through this spy. */
const timingSafeEqual = vi.hoisted(() => ({ spy: undefined as unknown as ReturnType<typeof vi.fn> }))
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof Crypto>()
  timingSafeEqual.spy = vi.fn(crypto.timingSafeEqual)
  return {
    ...crypto,
    default: { ...crypto, timingSafeEqual: timingSafeEqual.spy },
    timingSafeEqual: timingSafeEqual.spy,
  }
})

const { tokenMatches } = await import('../../src/sidecar/token-matches.js')
const { builtinSessionValue, createAuthenticator, createSidecarAuth, requireActor } =
  await import('../../src/sidecar/auth/index.js')
const { testAuthDeps } = await import('../support/test-auth.js')
const { createSignatureVerifier, SignatureVerificationError } = await import('../../src/signing/index.js')

const TOKEN = 'kit_constant_time_0123456789abcdef'
/** None of the tokens presented here is shaped like a user token, so no database is ever asked. */
const NO_DATABASE = new Proxy({} as never, {
  get() {
    throw new Error('this test has no database')
  },
})
const authDeps = testAuthDeps(NO_DATABASE, TOKEN)
const spy = () => timingSafeEqual.spy

// A block body: a function returned from beforeEach would be run as its teardown.
beforeEach(() => {
  spy().mockClear()
})

const PRESENTED: Array<[string, string | undefined]> = [
  ['nothing', undefined],
  ['an empty token', ''],
  ['one character', 'k'],
  ['a prefix', TOKEN.slice(0, 10)],
  ['one character short', TOKEN.slice(0, -1)],
  ['one character long', `${TOKEN}0`],
  ['the same length, last character wrong', `${TOKEN.slice(0, -1)}0`],
  ['the same length, first character wrong', `X${TOKEN.slice(1)}`],
  ['a very long token', TOKEN.repeat(100)],
]

describe('KIT_API_TOKEN comparison', () => {
  it.each(PRESENTED)('compares %s with one timingSafeEqual over equal-length digests', (_what, given) => {
    expect(tokenMatches(given, TOKEN)).toBe(false)
    expect(spy()).toHaveBeenCalledTimes(1)
    const [a, b] = spy().mock.calls[0] as [Buffer, Buffer]
    expect(a.length).toBe(32)
    expect(b.length).toBe(32)
  })

  it('accepts the token itself through the same single comparison', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true)
    expect(spy()).toHaveBeenCalledTimes(1)
  })

  it('never accepts anything when no token is configured', () => {
    for (const [, given] of PRESENTED) expect(tokenMatches(given, '')).toBe(false)
  })

  it('guards /api with the same comparison for every presented header, whatever its length', async () => {
    const app = express()
    app.use('/api', requireActor(createSidecarAuth(authDeps)), (_req, res) => void res.json({ ok: true }))
    app.use(((error, _req, res, _next) => void res.status(error.status).end()) as express.ErrorRequestHandler)
    for (const [what, given] of PRESENTED) {
      spy().mockClear()
      const call = request(app).get('/api/x')
      const answer = await (given === undefined ? call : call.set('authorization', `Bearer ${given}`))
      expect(answer.status, what).toBe(401)
      // No token (no header, or an empty Bearer) is nothing to compare; any token is compared once.
      expect(spy(), what).toHaveBeenCalledTimes(given === undefined || given === '' ? 0 : 1)
    }
    spy().mockClear()
    expect((await request(app).get('/api/x').set('authorization', `Bearer ${TOKEN}`)).status).toBe(200)
    expect(spy()).toHaveBeenCalledTimes(1)
  })

  it('checks the dashboard session cookie with timingSafeEqual too', async () => {
    const authenticator = createAuthenticator(authDeps)
    expect(await authenticator.session(builtinSessionValue(TOKEN))).toMatchObject({ role: 'admin' })
    spy().mockClear()
    expect(await authenticator.session('short')).toBeUndefined()
    expect(spy()).toHaveBeenCalledTimes(1)
    const [a, b] = spy().mock.calls[0] as [Buffer, Buffer]
    expect([a.length, b.length]).toEqual([32, 32])
  })

  it('is never compared with == or === anywhere in src', () => {
    const offenders: string[] = []
    const visit = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) visit(path)
        else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8')
          const pattern =
            /\b(?:apiToken|KIT_API_TOKEN|token|secret|signature|expected)\s*[!=]==?\s*(?!undefined\b|null\b|''|"")\w/g
          for (const match of text.matchAll(pattern)) offenders.push(`${path}: ${match[0]}`)
        }
      }
    }
    visit(join(import.meta.dirname, '../../src'))
    expect(offenders).toEqual([])
  })
})

describe('webhook signature comparison', () => {
  const SECRETS = ['whsec_one_aaaaaaaa', 'whsec_two_bbbbbbbb', 'whsec_three_cccccc']
  const NOW = new Date('2026-03-02T09:00:00Z')
  const t = Math.floor(NOW.getTime() / 1000)
  const body = Buffer.from('{"id":"evt_1","type":"test"}')
  const v1 = (secret: string) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')
  const verify = createSignatureVerifier({ secrets: SECRETS })
  const header = (signatures: string[]) => [`t=${t}`, ...signatures.map((s) => `v1=${s}`)].join(',')
  const wrong = (n: number) => String(n).repeat(64).slice(0, 64)

  it.each([
    ['the first pair matches', [v1(SECRETS[0]!), wrong(1), wrong(2), wrong(3)], 0],
    ['the last pair matches', [wrong(1), wrong(2), wrong(3), v1(SECRETS[2]!)], 2],
    ['two secrets match (rotation)', [v1(SECRETS[1]!), v1(SECRETS[0]!), wrong(2), wrong(3)], 0],
  ] as const)(
    'compares all 3 secrets × 4 signatures, with no early exit, when %s',
    (_what, signatures, secretIndex) => {
      expect(verify({ payload: body, header: header([...signatures]), now: NOW }).secretIndex).toBe(
        secretIndex,
      )
      expect(spy()).toHaveBeenCalledTimes(12)
      for (const [a, b] of spy().mock.calls as [Buffer, Buffer][]) {
        expect(a.length).toBe(32)
        expect(b.length).toBe(32)
      }
    },
  )

  it('compares every pair when nothing matches, then refuses', () => {
    expect(() =>
      verify({ payload: body, header: header([wrong(1), wrong(2), wrong(3), wrong(4)]), now: NOW }),
    ).toThrow(SignatureVerificationError)
    expect(spy()).toHaveBeenCalledTimes(12)
  })

  it('never compares a v1 that is not a 32-byte digest (skipped, so every compare has one length)', () => {
    expect(() =>
      verify({ payload: body, header: `t=${t},v1=${v1(SECRETS[0]!).slice(0, 62)},v1=abc`, now: NOW }),
    ).toThrow(expect.objectContaining({ reason: 'no_signature' }))
    expect(spy()).not.toHaveBeenCalled()
  })

  it('refuses a timestamp outside the tolerance before any comparison, in both directions', () => {
    // The property tests in src/signing/signature.test.ts cover every tolerance; this pins the order.
    for (const skew of [-301, 301]) {
      const when = new Date(NOW.getTime() + skew * 1000)
      expect(() => verify({ payload: body, header: header([v1(SECRETS[0]!)]), now: when })).toThrow(
        expect.objectContaining({ reason: 'timestamp_outside_tolerance' }),
      )
    }
    expect(spy()).not.toHaveBeenCalled()
  })
})
