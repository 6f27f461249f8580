import type { BankrecEnv } from '../config/index.js'
import type { QueueBackendConfig } from '../queue/index.js'

/**
 * REDIS_URL selects Redis; without it the queues live in PostgreSQL, in a schema beside bankrec's tables. Every
 * worker hands a crashed worker's jobs on after JOB_LOCK_SECONDS.
 */
export function queueBackendFor(config: BankrecEnv, connectionString: string): QueueBackendConfig {
  const jobLockMs = config.JOB_LOCK_SECONDS * 1000
  if (config.REDIS_URL)
    return { kind: 'redis', url: config.REDIS_URL, prefix: config.QUEUE_PREFIX, jobLockMs }
  return { kind: 'postgres', connectionString, schema: `${config.BANKREC_SCHEMA}_queue`, jobLockMs }
}
