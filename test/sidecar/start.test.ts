import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_sidecar_${suffix}`
let sidecar: Sidecar

beforeAll(async () => {
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    REDIS_URL: 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `test-sidecar-${suffix}`,
    PORT: '0',
    KIT_API_TOKEN: 'test-token-0123456789',
  })
  sidecar = await startSidecar({
    config,
    roles: new Set(['receiver', 'worker', 'api']),
    logger: createLogger({ level: 'warn', destination: process.stderr }),
    sandboxPort: 0,
  })
})

afterAll(async () => {
  await sidecar?.close()
  const { Client } = (await import('pg')).default
  const client = new Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists ${schema} cascade`)
  await client.end()
})

describe('bankrec start in sandbox mode', () => {
  it('mirrors a newly onboarded connection through webhook, queue and sync', async () => {
    const { sandbox } = sidecar.context.bank
    const created = await onboardSandboxConnection(sidecar.context.bank)

    const truth = sandbox!.ctx.state
    const expected = [...truth.transactions.values()].filter((t) => t.connectionId === created.id).length
    expect(expected).toBeGreaterThan(0)
    await vi.waitFor(
      async () => {
        const row = await sql<{
          n: string
        }>`select count(*) as n from transactions where connection_id = ${created.id}`.execute(
          sidecar.context.store.db,
        )
        expect(Number(row.rows[0]!.n)).toBe(expected)
      },
      { timeout: 20_000, interval: 100 },
    )
    // The sync may finish before the `active` webhook is handled: wait for it rather than read once.
    await vi.waitFor(
      async () => {
        const history = await sidecar.context.store.db
          .selectFrom('connection_status_history')
          .select(['status', 'source'])
          .where('connection_id', '=', created.id)
          .execute()
        expect(history.filter((h) => h.source === 'webhook').map((h) => h.status)).toEqual(
          expect.arrayContaining(['draft', 'pendingActivation', 'active']),
        )
      },
      { timeout: 20_000, interval: 100 },
    )
  })

  it('serves the API only with the token', async () => {
    const unauthorized = await fetch(`${sidecar.url}/api/connections`)
    expect(unauthorized.status).toBe(401)
    // The connection row is written after the transactions, when the sync refreshes the mirror.
    await vi.waitFor(
      async () => {
        const answer = await fetch(`${sidecar.url}/api/connections`, {
          headers: { authorization: 'Bearer test-token-0123456789' },
        })
        expect(answer.status).toBe(200)
        expect(((await answer.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0)
      },
      { timeout: 20_000, interval: 100 },
    )
    expect((await fetch(`${sidecar.url}/readyz`)).status).toBe(200)
  })
})
