import { describe, expect, it } from 'vitest'
import { sinksFor } from '../../src/alerts/index.js'
import { ConfigError, loadConfig } from '../../src/config/index.js'
import { alertConfigOf } from '../../src/alert-delivery/index.js'

const SLACK = 'https://hooks.slack.example/services/T0/B0/token-value'

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('alert configuration from the environment', () => {
  it('reads thresholds, sinks and routes under the ALERT_* names docs/alerts.md uses', () => {
    const config = alertConfigOf(
      loadConfig({
        ALERT_SLACK_WEBHOOK_URL: SLACK,
        ALERT_WEBHOOK_URL: 'https://alerts.example/hook',
        ALERT_WEBHOOK_SECRET: 'signing-secret-0123456789',
        ALERT_REMINDER_SECONDS: '5',
        ALERT_ERRORED_AFTER_SECONDS: '6',
        ALERT_STALE_SYNC_SECONDS: '7',
        ALERT_ROUTES: 'critical=slack,webhook;info=log',
      }),
    )
    expect(config.thresholds).toEqual({ reminderSeconds: 5, erroredAfterSeconds: 6, staleSyncSeconds: 7 })
    expect(sinksFor('critical', config)).toEqual(['log', 'slack', 'webhook'])
    expect(sinksFor('info', config)).toEqual(['log'])
    expect(sinksFor('warning', config)).toEqual(['log', 'slack', 'webhook'])
  })

  it('sends everything to the single configured sink when no route is given', () => {
    const config = alertConfigOf(loadConfig({ ALERT_SLACK_WEBHOOK_URL: SLACK }))
    for (const severity of ['critical', 'warning', 'info'] as const) {
      expect(sinksFor(severity, config)).toEqual(['log', 'slack'])
    }
    expect(config.thresholds).toEqual({
      reminderSeconds: 14_400,
      erroredAfterSeconds: 3600,
      staleSyncSeconds: 93_600,
    })
  })

  it('lists a route to an unconfigured sink or a malformed route as a start-up problem, without values', () => {
    expect(problemsOf({ ALERT_ROUTES: 'critical=slack' })).toEqual([
      expect.stringMatching(/^ALERT_ROUTES routes critical alerts to slack, which is not configured/),
    ])
    const problems = problemsOf({ ALERT_SLACK_WEBHOOK_URL: SLACK, ALERT_ROUTES: 'loud=pager' })
    expect(problems).toEqual([expect.stringMatching(/^ALERT_ROUTES must look like/)])
    expect(problems.join()).not.toContain('token-value')
  })
})
