import { parseAlertEnv, type AlertConfig } from '../alerts/index.js'
import type { BankrecEnv } from '../config/index.js'

/** The alert routing, sinks and thresholds of a validated configuration. */
export function alertConfigOf(config: BankrecEnv): AlertConfig {
  const value = (v: string | number | undefined) => (v === undefined ? undefined : String(v))
  const parsed = parseAlertEnv({
    ALERT_SLACK_WEBHOOK_URL: config.ALERT_SLACK_WEBHOOK_URL,
    ALERT_WEBHOOK_URL: config.ALERT_WEBHOOK_URL,
    ALERT_WEBHOOK_SECRET: config.ALERT_WEBHOOK_SECRET,
    ALERT_REMINDER_SECONDS: value(config.ALERT_REMINDER_SECONDS),
    ALERT_ERRORED_AFTER_SECONDS: value(config.ALERT_ERRORED_AFTER_SECONDS),
    ALERT_STALE_SYNC_SECONDS: value(config.ALERT_STALE_SYNC_SECONDS),
    ALERT_ROUTES: config.ALERT_ROUTES,
    TRANSFER_POLL_INITIAL_SECONDS: value(config.TRANSFER_POLL_INITIAL_SECONDS),
    TRANSFER_POLL_MAX_SECONDS: value(config.TRANSFER_POLL_MAX_SECONDS),
  })
  // loadConfig has checked every one of these, so this only fails on a configuration built by hand.
  if (!parsed.ok) throw new Error(`invalid alert configuration: ${parsed.problems.join('; ')}`)
  return parsed.config
}
