import { describe, expect, it } from 'vitest'
import { Decimal } from 'decimal.js'
import { decideApproval, NO_APPROVALS, type ApprovalThreshold } from '../controls/index.js'
import { ConfigError, loadConfig } from './index.js'

describe('loadConfig', () => {
  it('applies defaults to an empty environment (sandbox mode)', () => {
    const config = loadConfig({})
    expect(config.PORT).toBe(8080)
    expect(config.SYNC_INTERVAL_SECONDS).toBe(900)
    // A send waits for the app's answer: 4 at a time per process fell behind 50 events/s on a busy machine.
    expect(config.APP_EVENTS_CONCURRENCY).toBe(16)
    expect(config.BANK_API_URL).toBeUndefined()
  })

  it('lists every problem at once, naming each variable', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        REDIS_URL: 'http://x',
        BANK_API_URL: 'https://bank.example',
        APP_WEBHOOK_URL: 'https://app.example/hooks',
      })
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const problems = (error as ConfigError).problems.join('\n')
      expect(problems).toMatch(/PORT must be a whole number/)
      expect(problems).toMatch(/REDIS_URL must be a redis/)
      expect(problems).toMatch(/BANK_API_KEY is required when BANK_API_URL is set/)
      expect(problems).toMatch(/APP_WEBHOOK_SECRET is required/)
    }
  })

  it('never repeats a secret value in a problem', () => {
    const secret = 'short-secret'
    try {
      loadConfig({ APP_WEBHOOK_URL: 'https://app.example/hooks', APP_WEBHOOK_SECRET: secret })
      expect.unreachable()
    } catch (error) {
      expect((error as Error).message).toMatch(/APP_WEBHOOK_SECRET must be at least 16 characters/)
      expect((error as Error).message).not.toContain(secret)
    }
  })

  it('refuses a user name or password in a URL bankrec calls, without repeating it', () => {
    const attempt = () =>
      loadConfig({
        APP_WEBHOOK_URL: 'https://bankrec:hunter2-app@app.example/events',
        APP_WEBHOOK_SECRET: 'app-secret-0123456789',
        ALERT_WEBHOOK_URL: 'https://ops@alerts.example/hook',
        ALERT_WEBHOOK_SECRET: 'alert-secret-0123456789',
      })
    expect(attempt).toThrow(ConfigError)
    try {
      attempt()
    } catch (error) {
      const { problems, message } = error as ConfigError
      expect(problems).toEqual([
        expect.stringMatching(/^APP_WEBHOOK_URL must not contain a user name or password/),
        expect.stringMatching(/^ALERT_WEBHOOK_URL must not contain a user name or password/),
      ])
      expect(message).not.toContain('hunter2-app')
    }
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://bankrec:pw@db.example/bankrec',
        BANKREC_SECRET_KEY: 'a'.repeat(64),
      }).DATABASE_URL,
    ).toBe('postgres://bankrec:pw@db.example/bankrec')
  })

  it('splits comma-separated webhook secrets, newest first', () => {
    expect(loadConfig({ WEBHOOK_SECRETS: 'whsec_new, whsec_old' }).WEBHOOK_SECRETS).toEqual([
      'whsec_new',
      'whsec_old',
    ])
  })

  it('reads APPROVAL_THRESHOLD_AMOUNT as one amount plus per-currency ones, naming a bad part', () => {
    const threshold = loadConfig({
      APPROVAL_THRESHOLD_AMOUNT: '500, JPY=50000,EUR=400',
    }).APPROVAL_THRESHOLD_AMOUNT
    expect(threshold).toEqual({ all: '500', byCurrency: { JPY: '50000', EUR: '400' } })
    const waitsForApproval = (limit: ApprovalThreshold | null, amount: Decimal, currency: string) =>
      decideApproval(
        { ...NO_APPROVALS, threshold: limit },
        { amount, currency, counted: { invoice: '0', payment: '0', maker: '0' } },
      ).needsSecondPerson
    const waits = (amount: string, currency: string) =>
      waitsForApproval(threshold ?? null, new Decimal(amount), currency)
    expect([waits('500', 'USD'), waits('500.01', 'USD')]).toEqual([false, true])
    expect([waits('400', 'EUR'), waits('400.01', 'EUR')]).toEqual([false, true])
    expect([waits('50000', 'JPY'), waits('50001', 'JPY')]).toEqual([false, true])
    // Only per-currency limits: other currencies never wait.
    const eurOnly = loadConfig({ APPROVAL_THRESHOLD_AMOUNT: 'EUR=10' }).APPROVAL_THRESHOLD_AMOUNT ?? null
    expect(waitsForApproval(eurOnly, new Decimal('1000000'), 'USD')).toBe(false)
    expect(waitsForApproval(eurOnly, new Decimal('10.5'), 'EUR')).toBe(true)
    expect(() => loadConfig({ APPROVAL_THRESHOLD_AMOUNT: '500,JPY=5O000' })).toThrow(
      /APPROVAL_THRESHOLD_AMOUNT "JPY=5O000": must be a plain decimal/,
    )
    expect(() => loadConfig({ APPROVAL_THRESHOLD_AMOUNT: '500,usd=1' })).toThrow(/"usd=1": the currency/)
  })

  it('reads the approval window, the admin opt-in and the chart of accounts, naming a bad item', () => {
    const config = loadConfig({ LEDGER_ACCOUNTS: '6800:write_off, 1590 Suspense:clearing' })
    expect([config.APPROVAL_WINDOW_HOURS, config.APPROVAL_BUILTIN_ADMIN_MAY_APPROVE]).toEqual([24, false])
    expect(config.LEDGER_ACCOUNTS).toEqual([
      { account: '6800', kind: 'write_off' },
      { account: '1590 Suspense', kind: 'clearing' },
    ])
    expect(
      loadConfig({ APPROVAL_BUILTIN_ADMIN_MAY_APPROVE: 'true' }).APPROVAL_BUILTIN_ADMIN_MAY_APPROVE,
    ).toBe(true)
    expect(() => loadConfig({ LEDGER_ACCOUNTS: '6800:writeoff' })).toThrow(
      /LEDGER_ACCOUNTS "6800:writeoff": the kind must be one of write_off/,
    )
    expect(() => loadConfig({ APPROVAL_WINDOW_HOURS: '0' })).toThrow(/APPROVAL_WINDOW_HOURS/)
    expect(() => loadConfig({ APPROVAL_BUILTIN_ADMIN_MAY_APPROVE: 'yes' })).toThrow(/must be true or false/)
  })

  it('refuses an app-event send concurrency that is not a whole number from 1 to 256, naming it', () => {
    expect(loadConfig({ APP_EVENTS_CONCURRENCY: '32' }).APP_EVENTS_CONCURRENCY).toBe(32)
    for (const bad of ['0', '257', '4.5', 'many'])
      expect(() => loadConfig({ APP_EVENTS_CONCURRENCY: bad })).toThrow(/APP_EVENTS_CONCURRENCY/)
  })
})
