import { z } from 'zod'

export const AlertSeverity = z.enum(['critical', 'warning', 'info'])
export type AlertSeverity = z.infer<typeof AlertSeverity>

export const AlertSinkName = z.enum(['slack', 'webhook', 'log'])
export type AlertSinkName = z.infer<typeof AlertSinkName>

const seconds = z.number().int().positive()
const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

/** Every threshold and interval of connection health, in seconds, so a black-box test can shorten them. */
export const HealthThresholds = z.object({
  /**
   * How long a connection may stay errored (the service retries it itself) before an incident opens.
   * @defaultValue 3600
   */
  erroredAfterSeconds: seconds.default(3600),
  /** How old an active connection's last sync may get before an incident opens. @defaultValue 93600 (26 h) */
  staleSyncSeconds: seconds.default(26 * 3600),
  /**
   * Interval between reminders while an incident stays open (ALERT_REMINDER_SECONDS).
   * @defaultValue 14400 (4 h)
   */
  reminderSeconds: seconds.default(4 * 3600),
})
export type HealthThresholds = z.infer<typeof HealthThresholds>

/** Backoff of polling a non-terminal transfer: initial × factor^attempt, capped at max. */
export const TransferPollSchedule = z.object({
  /** @defaultValue 10 */
  initialSeconds: seconds.default(10),
  /** @defaultValue 2 */
  factor: z.number().min(1).max(10).default(2),
  /** @defaultValue 900 (15 min) */
  maxSeconds: seconds.default(900),
})
export type TransferPollSchedule = z.infer<typeof TransferPollSchedule>

const SinkList = z.array(AlertSinkName)

/**
 * Where notices go. The log always receives every notice. `routes` lists, per severity, the sinks that
 * receive it; a severity without a route goes to every configured sink, so with a single sink configured
 * every alert, reminder and recovery goes there.
 */
export const AlertConfig = z
  .object({
    thresholds: HealthThresholds.prefault({}),
    transferPoll: TransferPollSchedule.prefault({}),
    slack: z.object({ webhookUrl: HttpUrl }).nullable().default(null),
    webhook: z
      .object({ url: HttpUrl, secret: z.string().min(1) })
      .nullable()
      .default(null),
    routes: z.partialRecord(AlertSeverity, SinkList).default({}),
  })
  .superRefine((config, ctx) => {
    if (config.transferPoll.maxSeconds < config.transferPoll.initialSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['transferPoll', 'maxSeconds'],
        message: 'must not be less than the initial poll delay',
      })
    }
    for (const [severity, sinks] of Object.entries(config.routes)) {
      for (const sink of sinks ?? []) {
        if (sink !== 'log' && config[sink] === null) {
          ctx.addIssue({
            code: 'custom',
            path: ['routes', severity],
            message: `routes ${severity} alerts to ${sink}, which is not configured`,
          })
        }
      }
    }
  })
export type AlertConfig = z.infer<typeof AlertConfig>

/** The sinks one notice goes to: the log always, then its severity's route or every configured sink. */
export function sinksFor(severity: AlertSeverity, config: AlertConfig): AlertSinkName[] {
  const configured: AlertSinkName[] = []
  if (config.slack) configured.push('slack')
  if (config.webhook) configured.push('webhook')
  const routed = config.routes[severity] ?? configured
  return ['log', ...configured.filter((sink) => routed.includes(sink))]
}

const whole = z
  .string()
  .trim()
  .regex(/^\d+$/, 'must be a whole number of seconds')
  .transform(Number)
  .pipe(seconds)

/** `critical=slack,webhook;warning=slack;info=log` */
const Routes = z
  .string()
  .trim()
  .transform((value, ctx) => {
    const routes: Partial<Record<AlertSeverity, AlertSinkName[]>> = {}
    for (const part of value.split(';').filter((p) => p.trim() !== '')) {
      const [rawSeverity = '', rawSinks = ''] = part.split('=')
      const severity = AlertSeverity.safeParse(rawSeverity.trim())
      const sinks = SinkList.safeParse(rawSinks.split(',').map((s) => s.trim()))
      if (!severity.success || !sinks.success) {
        ctx.addIssue({
          code: 'custom',
          message: `must look like critical=slack,webhook;warning=slack;info=log (got "${part.trim()}")`,
        })
        return z.NEVER
      }
      routes[severity.data] = sinks.data
    }
    return routes
  })

/** Never echo a value of these back: a Slack webhook URL carries its token. */
const AlertEnv = z.object({
  ALERT_SLACK_WEBHOOK_URL: HttpUrl.optional(),
  ALERT_WEBHOOK_URL: HttpUrl.optional(),
  ALERT_WEBHOOK_SECRET: z.string().optional(),
  ALERT_REMINDER_SECONDS: whole.optional(),
  ALERT_ERRORED_AFTER_SECONDS: whole.optional(),
  ALERT_STALE_SYNC_SECONDS: whole.optional(),
  ALERT_ROUTES: Routes.optional(),
  TRANSFER_POLL_INITIAL_SECONDS: whole.optional(),
  TRANSFER_POLL_MAX_SECONDS: whole.optional(),
})

/** Parses the alerting environment once; on failure lists every problem without echoing any value. */
export function parseAlertEnv(
  env: Record<string, string | undefined>,
): { ok: true; config: AlertConfig } | { ok: false; problems: string[] } {
  // An empty variable counts as unset, as in most process managers.
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([key, value]) => key in AlertEnv.shape && value !== undefined && value !== '',
    ),
  )
  const problems: string[] = []
  const hasUrl = present.ALERT_WEBHOOK_URL !== undefined
  const hasSecret = present.ALERT_WEBHOOK_SECRET !== undefined
  if (hasUrl && !hasSecret) {
    problems.push('ALERT_WEBHOOK_SECRET is required with ALERT_WEBHOOK_URL: deliveries are signed with it')
  }
  if (hasSecret && !hasUrl) problems.push('ALERT_WEBHOOK_URL is required with ALERT_WEBHOOK_SECRET')
  const parsed = AlertEnv.safeParse(present)
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`))
    return { ok: false, problems }
  }
  const e = parsed.data
  const config = AlertConfig.safeParse({
    thresholds: {
      reminderSeconds: e.ALERT_REMINDER_SECONDS,
      erroredAfterSeconds: e.ALERT_ERRORED_AFTER_SECONDS,
      staleSyncSeconds: e.ALERT_STALE_SYNC_SECONDS,
    },
    transferPoll: {
      initialSeconds: e.TRANSFER_POLL_INITIAL_SECONDS,
      maxSeconds: e.TRANSFER_POLL_MAX_SECONDS,
    },
    slack: e.ALERT_SLACK_WEBHOOK_URL === undefined ? null : { webhookUrl: e.ALERT_SLACK_WEBHOOK_URL },
    webhook: hasUrl && hasSecret ? { url: e.ALERT_WEBHOOK_URL, secret: e.ALERT_WEBHOOK_SECRET } : null,
    routes: e.ALERT_ROUTES ?? {},
  })
  if (!config.success) problems.push(...config.error.issues.map((i) => `${envNameOf(i.path)} ${i.message}`))
  return problems.length > 0 || !config.success ? { ok: false, problems } : { ok: true, config: config.data }
}

const ENV_NAMES: Record<string, string> = {
  'thresholds.reminderSeconds': 'ALERT_REMINDER_SECONDS',
  'thresholds.erroredAfterSeconds': 'ALERT_ERRORED_AFTER_SECONDS',
  'thresholds.staleSyncSeconds': 'ALERT_STALE_SYNC_SECONDS',
  'transferPoll.initialSeconds': 'TRANSFER_POLL_INITIAL_SECONDS',
  'transferPoll.maxSeconds': 'TRANSFER_POLL_MAX_SECONDS',
  'slack.webhookUrl': 'ALERT_SLACK_WEBHOOK_URL',
  'webhook.url': 'ALERT_WEBHOOK_URL',
  'webhook.secret': 'ALERT_WEBHOOK_SECRET',
}

function envNameOf(path: PropertyKey[]): string {
  const dotted = path.map(String).join('.')
  if (dotted.startsWith('routes')) return 'ALERT_ROUTES'
  return ENV_NAMES[dotted] ?? dotted
}
