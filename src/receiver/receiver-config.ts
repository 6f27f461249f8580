import { z } from 'zod'
import { DEFAULT_QUEUE_PREFIX } from '../queue/index.js'
import { DEFAULT_BODY_LIMIT_BYTES } from './webhook-receiver.js'

const whole = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))

/** The standalone receiver's environment. Secrets are never echoed back in a problem. */
const ReceiverEnv = z.object({
  PORT: whole(0, 65_535).default(8080),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  WEBHOOK_SECRETS: z
    .string({ error: 'is required: the signing secrets, comma-separated, newest first' })
    .transform((value) => value.split(',').map((s) => s.trim()))
    .refine((secrets) => secrets.every((s) => s.length > 0), 'must not contain an empty secret'),
  REDIS_URL: z
    .string({
      error: 'is required for now: the PostgreSQL queue for runs without Redis arrives with the store',
    })
    .trim()
    .regex(/^rediss?:\/\/./, 'must be a redis:// or rediss:// URL'),
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[\w.-]+$/, 'may hold only letters, digits, _ . and -')
    .default(DEFAULT_QUEUE_PREFIX),
  WEBHOOK_BODY_LIMIT_BYTES: whole(1_024, 64 * 1024 * 1024).default(DEFAULT_BODY_LIMIT_BYTES),
  WEBHOOK_TOLERANCE_SECONDS: whole(1, 86_400).default(300),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
})

export type ReceiverConfig = {
  port: number
  host: string
  secrets: string[]
  redisUrl: string
  queuePrefix: string
  bodyLimitBytes: number
  toleranceSeconds: number
  logLevel: z.infer<typeof ReceiverEnv>['LOG_LEVEL']
}

/** Parses the receiver's environment once; on failure lists every problem, one per variable and rule. */
export function parseReceiverConfig(
  env: Record<string, string | undefined>,
): { ok: true; config: ReceiverConfig } | { ok: false; problems: string[] } {
  // An empty variable counts as unset, as in most process managers.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  )
  const result = ReceiverEnv.safeParse(present)
  if (!result.success) {
    return { ok: false, problems: result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`) }
  }
  const e = result.data
  return {
    ok: true,
    config: {
      port: e.PORT,
      host: e.HOST,
      secrets: e.WEBHOOK_SECRETS,
      redisUrl: e.REDIS_URL,
      queuePrefix: e.QUEUE_PREFIX,
      bodyLimitBytes: e.WEBHOOK_BODY_LIMIT_BYTES,
      toleranceSeconds: e.WEBHOOK_TOLERANCE_SECONDS,
      logLevel: e.LOG_LEVEL,
    },
  }
}
