import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { createLogger } from '../../src/observability/index.js'
import { API_TOKEN, sampleValue, startTestSidecar } from '../sidecar/sidecar-fixture.js'

/**
 * Finding 8 (docs/security.md): failed token attempts were neither throttled nor logged. Each client has a
 * bucket of AUTH_FAILURE_BURST failures, one back every AUTH_FAILURE_REFILL_SECONDS; each refusal is a warn line
 * and a count in bankrec_auth_failures_total.
 */
const clock = createVirtualClock()
const lines: Array<Record<string, unknown>> = []
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>

beforeAll(async () => {
  const stream = new PassThrough()
  let buffered = ''
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    const complete = buffered.split('\n')
    buffered = complete.pop()!
    for (const line of complete) if (line) lines.push(JSON.parse(line) as Record<string, unknown>)
  })
  sidecar = await startTestSidecar(
    'token_throttle',
    ['api'],
    { AUTH_FAILURE_BURST: '3', AUTH_FAILURE_REFILL_SECONDS: '60' },
    { clock, logger: createLogger({ level: 'warn', destination: stream }) },
  )
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

const api = (token: string) =>
  fetch(`${sidecar.url}/api/overview`, { headers: { authorization: `Bearer ${token}` } })
const signIn = (token: string) =>
  fetch(`${sidecar.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
    body: new URLSearchParams({ token }).toString(),
  })
const refusals = () => lines.filter((line) => String(line.msg).startsWith('token attempt refused'))
const metric = async (labels: Record<string, string>) =>
  sampleValue(await (await fetch(`${sidecar.url}/metrics`)).text(), 'bankrec_auth_failures_total', labels)

describe('failed token attempts', () => {
  it('are refused with 429 once a client used its burst, the right token included, until a token comes back', async () => {
    for (let i = 0; i < 3; i++) expect((await api(`wrong-token-${i}`)).status).toBe(401)
    const throttled = await api('wrong-token-3')
    expect(throttled.status).toBe(429)
    expect(throttled.headers.get('retry-after')).toBe('60')
    expect(((await throttled.json()) as any).error.code).toBe('too_many_failed_attempts')
    // Not looked at while throttled: a guess that happens to be right tells the guesser nothing.
    expect((await api(API_TOKEN)).status).toBe(429)
    expect((await signIn(API_TOKEN)).status).toBe(429)

    clock.advance(60)
    expect((await api(API_TOKEN)).status).toBe(200)
    // One failure came back, and one only.
    expect((await api('wrong-again')).status).toBe(401)
    expect((await api(API_TOKEN)).status).toBe(429)
    clock.advance(180)
  })

  it('count the dashboard sign-in form like a Bearer header', async () => {
    for (let i = 0; i < 3; i++) {
      const refused = await signIn(`wrong-${i}`)
      expect(refused.status).toBe(401)
      expect(await refused.text()).toContain('That token was refused.')
    }
    const throttled = await signIn(API_TOKEN)
    expect(throttled.status).toBe(429)
    expect(await throttled.text()).toContain('Too many wrong tokens from this client')
    clock.advance(180)
    expect((await signIn(API_TOKEN)).status).toBe(303)
  })

  it('are each logged at warn with the client and path, never with what was presented', async () => {
    const logged = refusals()
    // The first test: 4 wrong tokens and 3 throttled API calls, 1 throttled sign-in; the second: 4 sign-ins.
    expect(logged.length).toBe(12)
    for (const line of logged) {
      expect(line.level).toBe(40)
      expect(line).toMatchObject({
        client: expect.stringMatching(/127\.0\.0\.1/),
        path: line.via === 'signin' ? '/dashboard/login' : '/api/overview',
      })
      expect(JSON.stringify(line)).not.toMatch(/wrong|test-token/)
    }
    expect(logged.filter((line) => line.via === 'signin').length).toBe(5)
  })

  it('are counted in bankrec_auth_failures_total by how they came and what was done', async () => {
    expect(await metric({ via: 'bearer', outcome: 'refused' })).toBe(4)
    expect(await metric({ via: 'bearer', outcome: 'throttled' })).toBe(3)
    expect(await metric({ via: 'signin', outcome: 'refused' })).toBe(3)
    expect(await metric({ via: 'signin', outcome: 'throttled' })).toBe(2)
  })
})
