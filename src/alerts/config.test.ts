import { describe, expect, it } from 'vitest'
import { AlertConfig, parseAlertEnv, sinksFor } from './config.js'

const SLACK = 'https://hooks.slack.example/services/T000/B000/XXXXsecretTOKEN'
const HOOK = 'https://ops.example/alerts'
const SECRET = 'whsec_alerts_0f9e'

function config(env: Record<string, string | undefined>) {
  const result = parseAlertEnv(env)
  if (!result.ok) throw new Error(result.problems.join('; '))
  return result.config
}

function problems(env: Record<string, string | undefined>) {
  const result = parseAlertEnv(env)
  if (result.ok) throw new Error('expected problems')
  return result.problems
}

describe('alert configuration', () => {
  it('defaults to 1 h errored, 26 h stale sync, 4 h reminders and the log only', () => {
    const c = config({})
    expect(c.thresholds).toEqual({
      erroredAfterSeconds: 3600,
      staleSyncSeconds: 93_600,
      reminderSeconds: 14_400,
    })
    expect(c.transferPoll).toEqual({ initialSeconds: 10, factor: 2, maxSeconds: 900 })
    expect(sinksFor('critical', c)).toEqual(['log'])
  })

  it('takes every threshold and interval from the environment so a test can shorten it', () => {
    const c = config({
      ALERT_REMINDER_SECONDS: '5',
      ALERT_ERRORED_AFTER_SECONDS: '2',
      ALERT_STALE_SYNC_SECONDS: '30',
      TRANSFER_POLL_INITIAL_SECONDS: '1',
      TRANSFER_POLL_MAX_SECONDS: '4',
    })
    expect(c.thresholds).toEqual({ erroredAfterSeconds: 2, staleSyncSeconds: 30, reminderSeconds: 5 })
    expect(c.transferPoll).toMatchObject({ initialSeconds: 1, maxSeconds: 4 })
  })

  it('sends every alert, reminder and recovery to the single sink configured', () => {
    const c = config({ ALERT_SLACK_WEBHOOK_URL: SLACK })
    for (const severity of ['critical', 'warning', 'info'] as const)
      expect(sinksFor(severity, c)).toEqual(['log', 'slack'])
  })

  it('routes each severity to the sinks ALERT_ROUTES names, and unnamed ones to every sink', () => {
    const c = config({
      ALERT_SLACK_WEBHOOK_URL: SLACK,
      ALERT_WEBHOOK_URL: HOOK,
      ALERT_WEBHOOK_SECRET: SECRET,
      ALERT_ROUTES: 'critical=slack,webhook; info=log',
    })
    expect(sinksFor('critical', c)).toEqual(['log', 'slack', 'webhook'])
    expect(sinksFor('info', c)).toEqual(['log'])
    expect(sinksFor('warning', c)).toEqual(['log', 'slack', 'webhook'])
  })

  it('lists every problem at once, naming the variables', () => {
    const found = problems({
      ALERT_REMINDER_SECONDS: 'soon',
      ALERT_STALE_SYNC_SECONDS: '0',
      ALERT_ROUTES: 'urgent=pager',
    })
    expect(found).toHaveLength(3)
    expect(found.join('\n')).toMatch(/ALERT_REMINDER_SECONDS.*\n.*ALERT_STALE_SYNC_SECONDS.*\n.*ALERT_ROUTES/)
  })

  it('refuses a route to a sink that is not configured', () => {
    expect(problems({ ALERT_ROUTES: 'critical=slack' })).toEqual([
      'ALERT_ROUTES routes critical alerts to slack, which is not configured',
    ])
  })

  it('needs the secret with the JSON webhook URL, and never echoes either value', () => {
    expect(problems({ ALERT_WEBHOOK_URL: HOOK })[0]).toMatch(/^ALERT_WEBHOOK_SECRET is required/)
    const bad = problems({
      ALERT_SLACK_WEBHOOK_URL: 'not a url XXXXsecretTOKEN',
      ALERT_WEBHOOK_SECRET: SECRET,
    })
    expect(bad).toEqual([
      'ALERT_WEBHOOK_URL is required with ALERT_WEBHOOK_SECRET',
      expect.stringMatching(/^ALERT_SLACK_WEBHOOK_URL /),
    ])
    expect(bad.join('\n')).not.toMatch(/XXXXsecretTOKEN|whsec_alerts/)
  })

  it('treats an empty variable as unset', () => {
    expect(config({ ALERT_SLACK_WEBHOOK_URL: '', ALERT_REMINDER_SECONDS: '' }).slack).toBeNull()
  })

  it('refuses a poll cap below the initial delay', () => {
    expect(AlertConfig.safeParse({ transferPoll: { initialSeconds: 60, maxSeconds: 30 } }).success).toBe(
      false,
    )
  })
})
