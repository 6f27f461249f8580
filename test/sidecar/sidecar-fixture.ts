import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Clock } from '../../src/clock/index.js'
import { loadConfig } from '../../src/config/index.js'
import { createLogger, type Logger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar, type SidecarRole } from '../../src/sidecar/index.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

export const API_TOKEN = 'test-token-0123456789'
export const WEBHOOK_SECRET = 'whsec_sidecar_tests_8c1f'

/** A sidecar in sandbox mode on a schema and queue prefix of its own; drop() removes both after close(). */
export async function startTestSidecar(
  label: string,
  roles: SidecarRole[],
  env: Record<string, string> = {},
  options: { clock?: Clock; logger?: Logger } = {},
): Promise<Sidecar & { schema: string; prefix: string; drop(): Promise<void> }> {
  const suffix = randomBytes(4).toString('hex')
  const schema = `test_${label}_${suffix}`
  const prefix = `test-${label}-${suffix}`
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: prefix,
    PORT: '0',
    KIT_API_TOKEN: API_TOKEN,
    WEBHOOK_SECRETS: WEBHOOK_SECRET,
    ...env,
  })
  const sidecar = await startSidecar({
    config,
    roles: new Set(roles),
    logger: options.logger ?? createLogger({ level: 'silent', destination: process.stderr }),
    clock: options.clock,
    sandboxPort: 0,
  })
  return {
    ...sidecar,
    schema,
    prefix,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

/** The value of one sample in Prometheus text, or undefined when it is absent. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const present = (match[2] ?? '').split(/,(?=[a-zA-Z_]\w*=")/).filter(Boolean)
    if (wanted.length === present.length && wanted.every((pair) => present.includes(pair)))
      return Number(match[3])
  }
  return undefined
}
