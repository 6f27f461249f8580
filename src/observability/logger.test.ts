import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from './logger.js'
import { redactSecrets } from './redact.js'

function capture(): { stream: Writable; text(): string } {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    },
  })
  return { stream, text: () => text }
}

/** One canary per kind of secret the attack review found missing, each three or more levels down. */
const CANARIES = {
  token: 'canary-token-5f1e',
  cookie: 'canary-cookie-9a2b',
  credentials: 'canary-credentials-3c4d',
  databaseUrl: 'canary-db-password-7e8f',
  slackUrl: 'canary-slack-path-token-0a1b',
  redisUrl: 'canary-redis-password-2c3d',
  kitToken: 'canary-kit-api-token-4e5f',
  signature: 'canary-signature-6a7b',
  apiKey: 'canary-api-key-8c9d',
  password: 'canary-password-0e1f',
  childToken: 'canary-child-binding-2a3b',
  anyUrl: 'canary-url-password-4c5d',
}

describe('createLogger', () => {
  it('logs no nested canary of any kind of secret, at any depth, and keeps the values around them', () => {
    const out = capture()
    const logger = createLogger({ level: 'trace', destination: out.stream })
    const nested = {
      job: {
        step: {
          request: {
            token: CANARIES.token,
            headers: {
              cookie: `bankrec_session=${CANARIES.cookie}`,
              'Service-Signature': `t=1,v1=${CANARIES.signature}`,
              'x-api-key': CANARIES.apiKey,
            },
            credentials: { username: 'ops', secretAnswer: CANARIES.credentials },
          },
          config: {
            DATABASE_URL: `postgres://bankrec:${CANARIES.databaseUrl}@db.example/bankrec`,
            ALERT_SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/T0/B0/${CANARIES.slackUrl}`,
            REDIS_URL: `redis://:${CANARIES.redisUrl}@redis.example:6379`,
            KIT_API_TOKEN: CANARIES.kitToken,
          },
          list: [{ user: { password: CANARIES.password } }],
          target: `see https://ops:${CANARIES.anyUrl}@ops.example/hook`,
          kept: 'visible-value',
        },
      },
    }
    logger
      .child({ scope: 'outer' })
      .child({ session: { token: CANARIES.childToken } })
      .warn(nested, 'nested secrets')
    const text = out.text()
    for (const [kind, canary] of Object.entries(CANARIES)) expect(text, kind).not.toContain(canary)
    const line = JSON.parse(text) as { job: { step: Record<string, unknown> }; session: unknown }
    expect(line.job.step.kept).toBe('visible-value')
    expect(line.job.step.target).toBe('see https://ops:[redacted]@ops.example/hook')
    expect(line.session).toEqual({ token: '[redacted]' })
    expect(text).toContain('nested secrets')
  })

  it('leaves the logged object itself unchanged', () => {
    const object = { a: { token: 'kept-in-memory' } }
    redactSecrets(object)
    expect(object.a.token).toBe('kept-in-memory')
  })

  it('cuts a cycle instead of following it', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    expect(redactSecrets(cyclic)).toEqual({ name: 'loop', self: '[circular]' })
  })
})
