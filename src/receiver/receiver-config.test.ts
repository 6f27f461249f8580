import { describe, expect, it } from 'vitest'
import { parseReceiverConfig } from './receiver-config.js'

describe('parseReceiverConfig', () => {
  it('reads secrets newest first and applies the defaults', () => {
    const result = parseReceiverConfig({
      WEBHOOK_SECRETS: 'whsec_new, whsec_old',
      REDIS_URL: 'redis://127.0.0.1:6379',
    })
    expect(result).toEqual({
      ok: true,
      config: {
        port: 8080,
        host: '127.0.0.1',
        secrets: ['whsec_new', 'whsec_old'],
        redisUrl: 'redis://127.0.0.1:6379',
        queuePrefix: 'bankrec',
        bodyLimitBytes: 262_144,
        toleranceSeconds: 300,
        logLevel: 'info',
      },
    })
  })

  it('lists every problem at once and never repeats a secret', () => {
    const result = parseReceiverConfig({
      PORT: '70000',
      WEBHOOK_SECRETS: 'whsec_only_me,',
      WEBHOOK_BODY_LIMIT_BYTES: 'lots',
      REDIS_URL: 'http://127.0.0.1',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems.map((p) => p.split(' ')[0])).toEqual([
      'PORT',
      'WEBHOOK_SECRETS',
      'REDIS_URL',
      'WEBHOOK_BODY_LIMIT_BYTES',
    ])
    expect(result.problems.join('\n')).not.toContain('whsec_only_me')
  })

  it('says that WEBHOOK_SECRETS and REDIS_URL are required when unset or empty', () => {
    const result = parseReceiverConfig({ WEBHOOK_SECRETS: '' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems).toEqual([
      expect.stringMatching(/^WEBHOOK_SECRETS is required/),
      expect.stringMatching(/^REDIS_URL is required/),
    ])
  })
})
