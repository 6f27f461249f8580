import { isIP } from 'node:net'
import { z } from 'zod'
import { parseAlertEnv } from '../alerts/index.js'
import { parseSecretKey } from '../store/index.js'
import { WRITE_OFF_REASONS } from '../matcher/index.js'
import { parseLedgerChart } from '../controls/index.js'
import { USER_NAME_PATTERN, USER_NAME_RULE } from '../users/index.js'

const whole = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))

const url = (protocols: RegExp, hint: string) =>
  z
    .string()
    .trim()
    .refine((value) => {
      try {
        return protocols.test(new URL(value).protocol)
      } catch {
        return false
      }
    }, hint)

/** An http(s) URL bankrec calls or hands out: credentials in it would reach logs, error messages and proxies. */
const webUrl = (hint: string) =>
  url(/^https?:$/, hint).refine((value) => {
    try {
      const parsed = new URL(value)
      return parsed.username === '' && parsed.password === ''
    } catch {
      return true
    }
  }, 'must not contain a user name or password (user:password@); its receiver checks the signature instead')

/** An address, a subnet or one of express's names for the proxies it may trust. */
function isProxyAddress(item: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) return true
  const [address = '', bits, ...rest] = item.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

const list = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()))
  .refine((items) => items.every((s) => s.length > 0), 'must not contain an empty item')

/** A limit for every currency and per currency: `30.00`, `30.00,JPY=3000,EUR=15`; each a plain decimal. */
export type PerCurrency = { all: string | null; byCurrency: Record<string, string> }

const perCurrency = (limit: { max?: number; example: string }) =>
  z
    .string()
    .trim()
    .transform((value, ctx): PerCurrency => {
      const parsed: PerCurrency = { all: null, byCurrency: {} }
      for (const item of value.split(',').map((part) => part.trim())) {
        const [currency, amount] = item.includes('=')
          ? item.split('=').map((part) => part.trim())
          : [null, item]
        const problem =
          currency !== null && !/^[A-Z0-9]{3,12}$/.test(currency ?? '')
            ? `"${item}": the currency must be 3 to 12 upper-case letters or digits, such as EUR`
            : !/^\d{1,30}(\.\d{1,18})?$/.test(amount ?? '') || !/[1-9]/.test(amount ?? '')
              ? `"${item}": must be a plain decimal greater than 0, such as ${limit.example}`
              : limit.max !== undefined && Number(amount) >= limit.max
                ? `"${item}": must be below ${limit.max}`
                : (currency === null ? parsed.all !== null : currency in parsed.byCurrency)
                  ? `"${item}": ${currency ?? 'the limit for every currency'} is given twice`
                  : null
        if (problem) {
          ctx.addIssue({ code: 'custom', message: `${problem} (e.g. ${limit.example},JPY=3000)` })
          return z.NEVER
        }
        if (currency === null) parsed.all = amount as string
        else parsed.byCurrency[currency as string] = amount as string
      }
      return parsed
    })

const ACCOUNT = /^[\w .:/-]{1,64}$/
const ACCOUNT_RULE = 'must be 1 to 64 letters, digits, spaces or _ . : / -'

/**
 * Every environment variable bankrec reads, with its default. The README's configuration table follows this
 * schema; docs/configuration.md explains each.
 */
export const BankrecEnv = z
  .object({
    BANK_API_URL: webUrl('must be an http(s) URL such as https://api.bank.example').optional(),
    BANK_API_KEY: z.string().trim().min(1).optional(),
    WEBHOOK_SECRETS: list.optional(),
    DATABASE_URL: url(/^postgres(ql)?:$/, 'must be a postgres:// URL').optional(),
    BANKREC_DATA_DIR: z.string().trim().min(1).optional(),
    /** Seals the webhook signing secrets in the database (AES-256-GCM); generated and kept 0600 when unset. */
    BANKREC_SECRET_KEY: z
      .string()
      .trim()
      .refine(
        (value) => parseSecretKey(value) !== undefined,
        'must be 32 bytes as 64 hex digits or as base64',
      )
      .optional(),
    BANKREC_SCHEMA: z
      .string()
      .trim()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default('bankrec'),
    REDIS_URL: url(/^rediss?:$/, 'must be a redis:// or rediss:// URL').optional(),
    QUEUE_PREFIX: z
      .string()
      .trim()
      .regex(/^[\w.-]+$/, 'may hold only letters, digits, _ . and -')
      .default('bankrec'),
    PORT: whole(0, 65_535).default(8080),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    /**
     * Sandbox mode only: whether the simulated bank makes up account activity of its own (history and new lines
     * on each sync). `bankrec start` and `bankrec demo` turn it off unless it is set, so the demo story's
     * payments are the only ones.
     */
    SANDBOX_ACTIVITY: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
    PUBLIC_URL: webUrl('must be the http(s) URL the bank reaches this sidecar at').optional(),
    KIT_API_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
    APP_WEBHOOK_URL: webUrl('must be an http(s) URL').optional(),
    APP_WEBHOOK_SECRET: z.string().trim().min(16, 'must be at least 16 characters').optional(),
    ALERT_SLACK_WEBHOOK_URL: webUrl('must be an http(s) URL').optional(),
    ALERT_WEBHOOK_URL: webUrl('must be an http(s) URL').optional(),
    ALERT_WEBHOOK_SECRET: z.string().trim().min(16, 'must be at least 16 characters').optional(),
    SYNC_INTERVAL_SECONDS: whole(10, 86_400).default(900),
    ALERT_REMINDER_SECONDS: whole(1, 30 * 86_400).default(4 * 3600),
    ALERT_ERRORED_AFTER_SECONDS: whole(1, 30 * 86_400).default(3600),
    ALERT_STALE_SYNC_SECONDS: whole(1, 30 * 86_400).default(26 * 3600),
    /** `critical=slack,webhook;warning=slack;info=log`; checked against the configured sinks below. */
    ALERT_ROUTES: z.string().trim().optional(),
    /** How often the connection health rules run (stale sync, errored too long, reminders). */
    ALERT_TICK_SECONDS: whole(1, 3600).default(60),
    TRANSFER_LEG_WINDOW_SECONDS: whole(60, 30 * 86_400).default(3 * 86_400),
    /** Evidence score (0–100) from which a match is applied without a person (docs/matching.md). */
    MATCH_AUTO_APPLY_THRESHOLD: whole(1, 100).default(85),
    /** What one person may take out of receivables alone, per currency (`500`, `500,JPY=50000`); unset: no limit. */
    APPROVAL_THRESHOLD_AMOUNT: perCurrency({ example: '500.00' }).optional(),
    /** How far back a maker's own operations count against APPROVAL_THRESHOLD_AMOUNT (issue 26). */
    APPROVAL_WINDOW_HOURS: whole(1, 24 * 366).default(24),
    /** Whether KIT_API_TOKEN's built-in admin (the CLI without BANKREC_USER_TOKEN) may approve; default no. */
    APPROVAL_BUILTIN_ADMIN_MAY_APPROVE: z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .default('false')
      .transform((value) => value === 'true'),
    /** The chart of accounts people book to: `6800:write_off,1590:clearing,2890:refund,…`; unset: the defaults. */
    LEDGER_ACCOUNTS: z
      .string()
      .trim()
      .transform((value, ctx) => {
        const { chart, problems } = parseLedgerChart(value)
        for (const problem of problems) ctx.addIssue({ code: 'custom', message: problem })
        return problems.length > 0 ? z.NEVER : chart
      })
      .optional(),
    /** Rule 5: a suggestion scoring at least this much is confirmed without a person; unset: never. */
    MATCH_AUTO_CONFIRM_THRESHOLD: whole(1, 100).optional(),
    /** Dates are evidence: days an invoice may be dated after the payment and still be applied automatically. */
    MATCH_INVOICE_DATE_GRACE_DAYS: whole(0, 365).default(5),
    /** Dates are evidence: an inflow older than this many days is never returned without a person. */
    MATCH_RETURN_HORIZON_DAYS: whole(1, 3650).default(120),
    /** A short payment leaving at most this much open pays the invoice (`30.00`, `30.00,JPY=3000`); unset: off. */
    MATCH_FEE_TOLERANCE_AMOUNT: perCurrency({ example: '30.00' }).optional(),
    /** The same as a percent of the invoice amount (`2`, `2,EUR=1.5`); with both, the smaller limit applies. */
    MATCH_FEE_TOLERANCE_PERCENT: perCurrency({ max: 100, example: '2' }).optional(),
    /** The ledger account write-offs are booked to. */
    MATCH_WRITE_OFF_ACCOUNT: z.string().trim().regex(ACCOUNT, ACCOUNT_RULE).default('write-off'),
    /** Per reason, the account instead: `bank_fee=6820,discount=4900,credit_note=4100`. */
    MATCH_WRITE_OFF_ACCOUNTS: z
      .string()
      .trim()
      .transform((value, ctx) => {
        const accounts: Record<string, string> = {}
        for (const item of value.split(',').map((part) => part.trim())) {
          const [reason = '', account = ''] = item.split('=').map((part) => part.trim())
          const problem = !(WRITE_OFF_REASONS as readonly string[]).includes(reason)
            ? `"${item}": the reason must be one of ${WRITE_OFF_REASONS.join(', ')}`
            : !ACCOUNT.test(account)
              ? `"${item}": the account ${ACCOUNT_RULE}`
              : reason in accounts
                ? `"${item}": ${reason} is given twice`
                : null
          if (problem) {
            ctx.addIssue({ code: 'custom', message: problem })
            return z.NEVER
          }
          accounts[reason] = account
        }
        return accounts
      })
      .optional(),
    /** First delay of polling a non-terminal transfer; each poll without a change doubles it. */
    TRANSFER_POLL_INITIAL_SECONDS: whole(1, 86_400).default(10),
    /** Longest delay between two polls of a non-terminal transfer. */
    TRANSFER_POLL_MAX_SECONDS: whole(1, 7 * 86_400).default(900),
    /** How often a worker looks for transfers due for a poll. */
    TRANSFER_SCAN_SECONDS: whole(1, 3600).default(5),
    /** How often undelivered app events whose job was lost are queued again. */
    APP_EVENTS_RESCAN_SECONDS: whole(1, 86_400).default(60),
    /**
     * App events each worker process sends at once as their commits are announced (retries run as jobs, at
     * WORKER_CONCURRENCY). A send waits mostly for the app's answer: on a busy machine 4 at a time capped two
     * processes at about 50 events/s (docs/performance.md, End-to-end latency).
     */
    APP_EVENTS_CONCURRENCY: whole(1, 256).default(16),
    WEBHOOK_BODY_LIMIT_BYTES: whole(1_024, 64 * 1024 * 1024).default(256 * 1024),
    WEBHOOK_TOLERANCE_SECONDS: whole(1, 86_400).default(300),
    WORKER_CONCURRENCY: whole(1, 64).default(4),
    /** Events per transactions/sync call of the sync worker (the seed's limit, 1–500). */
    SYNC_PAGE_SIZE: whole(1, 500).default(500),
    /**
     * Least time between two re-reads of a connection's status, accounts and balances (and its balance proof) after
     * caught-up syncs in one worker process: a run within it owes one, due when it is over. 0: after every run.
     */
    SYNC_REFRESH_SECONDS: whole(0, 3600).default(1),
    /** How long after a worker crashed its running jobs are handed to another worker (BullMQ's lock duration). */
    JOB_LOCK_SECONDS: whole(1, 3600).default(30),
    /** How long a stop waits for requests in flight and running jobs before it cuts them off. */
    SHUTDOWN_TIMEOUT_SECONDS: whole(1, 3600).default(30),
    /** The name the audit log records for what is done with KIT_API_TOKEN (the built-in admin). */
    KIT_API_TOKEN_NAME: z
      .string()
      .trim()
      .toLowerCase()
      .regex(USER_NAME_PATTERN, USER_NAME_RULE)
      .refine((name) => name !== 'engine' && name !== 'person', 'must not be engine or person')
      .default('admin'),
    /** CLI only: act as the user holding this token (`bankrec users add`); unset: as the built-in admin. */
    BANKREC_USER_TOKEN: z.string().trim().min(1).optional(),
    /** Failed token attempts one client may make at once (a token bucket per client address). */
    AUTH_FAILURE_BURST: whole(1, 1_000_000).default(10),
    /** How often a client regains one failed attempt. */
    AUTH_FAILURE_REFILL_SECONDS: whole(1, 86_400).default(6),
    /**
     * Which proxies' X-Forwarded-* headers to believe (express's `trust proxy`): a hop count, or a
     * comma-separated list of addresses, subnets and `loopback`/`linklocal`/`uniquelocal`; `false` or unset: none.
     * `true` is refused: it believes every X-Forwarded-For address, so a client picks its own (issue 26).
     */
    TRUST_PROXY: z
      .string()
      .trim()
      .superRefine((value, ctx) => {
        if (value.toLowerCase() === 'true') {
          ctx.addIssue({
            code: 'custom',
            message:
              'must not be true: that believes every X-Forwarded-For address, so any client could choose its own ' +
              'and escape the failed-token throttle. Give the number of proxies in front of bankrec (1) or their ' +
              'addresses (10.0.0.5, 10.0.0.0/8, loopback)',
          })
        } else if (
          !/^(false|\d{1,2})$/.test(value) &&
          !value.split(',').every((item) => isProxyAddress(item.trim()))
        ) {
          ctx.addIssue({
            code: 'custom',
            message:
              'must be a hop count, false, or a comma-separated list of addresses, subnets, loopback, linklocal or uniquelocal',
          })
        }
      })
      .transform((value): false | number | string[] =>
        value === 'false'
          ? false
          : /^\d+$/.test(value)
            ? Number(value)
            : value.split(',').map((item) => item.trim()),
      )
      .optional(),
    /**
     * Days a processed event's record is kept; a redelivery within them is not processed again. At least 7: the
     * receiver's own dedupe window is 3 days.
     */
    PROCESSED_EVENTS_RETENTION_DAYS: whole(7, 36_500).default(30),
    /** Days an uninterpretable event's body is kept once its exception is resolved. */
    UNINTERPRETABLE_EVENTS_RETENTION_DAYS: whole(1, 36_500).default(90),
    /** Bearer token GET /metrics requires; unset: /metrics is open (keep the port private then). */
    METRICS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * What the engine applies by itself until an admin sets a mode (`bankrec matching mode`, PUT
     * /api/settings/matching): `on`, `shadow` (nothing; what it would do is recorded for the trust report) or `off`.
     */
    MATCH_AUTO_APPLY: z.enum(['off', 'shadow', 'on'], { error: 'must be off, shadow or on' }).default('on'),
    /** One log line per HTTP request at info (`on`); `off` logs them at debug (LOG_LEVEL=debug shows them). */
    ACCESS_LOG: z.enum(['on', 'off']).default('off'),
  })
  .superRefine((env, ctx) => {
    if (env.BANK_API_URL && !env.BANK_API_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['BANK_API_KEY'],
        message: 'is required when BANK_API_URL is set',
      })
    }
    if (env.TRANSFER_POLL_MAX_SECONDS < env.TRANSFER_POLL_INITIAL_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRANSFER_POLL_MAX_SECONDS'],
        message: 'must not be less than TRANSFER_POLL_INITIAL_SECONDS',
      })
    }
    if (env.APP_WEBHOOK_URL && !env.APP_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['APP_WEBHOOK_SECRET'],
        message: 'is required when APP_WEBHOOK_URL is set: events to your app are signed with it',
      })
    }
    if (env.ALERT_WEBHOOK_URL && !env.ALERT_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['ALERT_WEBHOOK_SECRET'],
        message: 'is required when ALERT_WEBHOOK_URL is set: alerts are signed with it',
      })
    }
    if (env.ALERT_ROUTES) {
      const alerts = parseAlertEnv({
        ALERT_ROUTES: env.ALERT_ROUTES,
        ALERT_SLACK_WEBHOOK_URL: env.ALERT_SLACK_WEBHOOK_URL,
        ALERT_WEBHOOK_URL: env.ALERT_WEBHOOK_URL,
        ALERT_WEBHOOK_SECRET: env.ALERT_WEBHOOK_SECRET,
      })
      const problems = alerts.ok ? [] : alerts.problems.filter((p) => p.startsWith('ALERT_ROUTES'))
      for (const problem of problems) {
        ctx.addIssue({
          code: 'custom',
          path: ['ALERT_ROUTES'],
          message: problem.replace(/^ALERT_ROUTES /, ''),
        })
      }
    }
    if (env.DATABASE_URL && !env.BANKREC_SECRET_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['BANKREC_SECRET_KEY'],
        message:
          'is required when DATABASE_URL is set: every process sharing the database seals and opens the webhook secrets with this one key (generate it with `openssl rand -base64 32`)',
      })
    }
  })

export type BankrecEnv = z.output<typeof BankrecEnv>
