import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../src/sandbox/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { mirrorDifferences } from '../support/chaos/mirror-check.js'
import { seededRandom } from '../support/chaos/seeded-random.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

/**
 * The sidecar against every wire dialect the sandbox speaks (issue 14, item 4), with duplicated, reordered and
 * dropped webhooks: in each, the mirror ends equal to the bank and no authentic delivery was refused. One sidecar
 * per queue backend runs the dialects one after another, so a stream also survives the bank switching dialect.
 */
const WEBHOOK_FAULTS = { webhooks: { duplicateRate: 0.3, dropRate: 0.15, reorder: true } }
const ROUNDS = 3
const REFUSED_OUTCOMES = ['rejected', 'unavailable', 'error']

describe.each(['redis', 'postgres'] as const)('the dialect matrix on the %s queue', (queue) => {
  const suffix = randomBytes(4).toString('hex')
  const schema = `test_dialects_${queue}_${suffix}`
  const random = seededRandom(queue === 'redis' ? 14 : 41)
  let sidecar: Sidecar
  const connections: string[] = []

  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sidecar.context.bank.baseUrl}/_sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'sandbox-control': 'test' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    expect(response.status, `${method} /_sandbox${path}`).toBeLessThan(300)
    return (await response.json()) as any
  }
  const sandbox = () => sidecar.context.bank.sandbox!

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      ...(queue === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {}),
      QUEUE_PREFIX: `test-dialects-${suffix}`,
      PORT: '0',
      KIT_API_TOKEN: 'test-token-0123456789',
      // Only the test changes transactions: a few dozen per dialect keep the matrix fast.
      SANDBOX_ACTIVITY: 'off',
    })
    sidecar = await startSidecar({
      config,
      roles: new Set(['receiver', 'worker', 'api']),
      logger: createLogger({ level: (process.env.MATRIX_LOG_LEVEL as 'warn') ?? 'silent' }),
      sandboxPort: 0,
    })
  }, 60_000)

  afterAll(async () => {
    await sidecar?.close()
    await dropSidecarSchemas(schema)
  })

  /** Adds, edits and removes transactions on a connection as a bank would, a few at a time. */
  async function changeTransactions(connectionId: string): Promise<void> {
    const state = await control('GET', `/state?connectionId=${connectionId}`)
    const existing = (state.transactions as any[]).map((t) => t.id as string)
    for (let i = random.int(2, 5); i > 0; i--) {
      await control('POST', `/connections/${connectionId}/transactions`, {
        amount: `${random.int(1, 9999)}.${String(random.int(0, 99)).padStart(2, '0')}`,
        paymentReference: `INV-${random.int(1000, 9999)}`,
      })
    }
    if (existing.length > 0) {
      await control('PATCH', `/transactions/${random.pick(existing)}`, {
        description: `edited ${random.int(1, 99)}`,
      })
      if (random.chance(0.6))
        await control('DELETE', `/transactions/${random.pick(existing)}`).catch(() => undefined)
    }
  }

  it.each<SandboxDialect>([...SANDBOX_DIALECTS])(
    '%s: the mirror equals the bank, and every authentic delivery got a 2xx',
    async (dialect) => {
      await control('PUT', '/dialect', { name: dialect })
      await control('PUT', '/faults', WEBHOOK_FAULTS)
      const deliveriesBefore = sandbox().ctx.state.deliveries.length
      const connection = await onboardSandboxConnection(sidecar.context.bank)
      connections.push(connection.id)
      // This dialect's connection and one onboarded under an earlier dialect, whose stream now changes dialect.
      const touched = [
        connection.id,
        ...(connections.length > 1 ? [random.pick(connections.slice(0, -1))] : []),
      ]
      for (let round = 0; round < ROUNDS; round++) {
        for (const id of touched) await changeTransactions(id)
        if (round === 1) {
          await control('POST', `/connections/${connection.id}/status`, { status: 'paused' })
          await control('POST', `/connections/${connection.id}/status`, { status: 'active' })
        }
        await sandbox().flushWebhooks()
      }
      // A dropped delivery is never retried by the bank: the next one (faults off now) brings the news. Every
      // connection gets one, since the bank's own syncs (after a status change) may have lost theirs too.
      await control('PUT', '/faults', {})
      for (const id of connections)
        await control('POST', `/connections/${id}/transactions`, { amount: '1.00' })
      await sandbox().flushWebhooks()

      await vi.waitFor(
        async () => {
          const truth = await control('GET', '/state')
          expect(await mirrorDifferences(sidecar.context.store.db, truth, connections)).toEqual([])
          for (const id of connections) {
            const mirrored = await sidecar.context.store.db
              .selectFrom('connections')
              .select('status')
              .where('id', '=', id)
              .executeTakeFirst()
            expect(mirrored?.status, `status of ${id}`).toBe('active')
          }
        },
        { timeout: 20_000, interval: 200 },
      )

      const deliveries = sandbox().ctx.state.deliveries.slice(deliveriesBefore)
      expect(deliveries.length).toBeGreaterThan(0)
      const refused = deliveries.filter(
        (d) => d.lastStatusCode !== null && (d.lastStatusCode < 200 || d.lastStatusCode >= 300),
      )
      expect(refused.map((d) => `${d.eventType} ${d.lastStatusCode}`)).toEqual([])
      const metrics = await (await fetch(`${sidecar.url}/metrics`)).text()
      for (const outcome of REFUSED_OUTCOMES) {
        const total = metrics
          .split('\n')
          .filter((line) => line.startsWith(`bankrec_receiver_deliveries_total{outcome="${outcome}"`))
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
        expect(total, `deliveries answered ${outcome}`).toBe(0)
      }
    },
    40_000,
  )
})
