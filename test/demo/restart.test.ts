import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { demoMarker, runDemoStory, waitUntilReconciled, type DemoRun } from '../../src/demo/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar, type Sidecar } from '../../src/sidecar/index.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const schema = `test_demo_restart_${suffix}`
let directory: string
let firstRun: { lines: string[]; connectionId: string; sandboxTransactions: number }
const REAL_BANK_WEBHOOK = 'https://bankrec.example.com/webhooks'
let second: Sidecar
const secondLines: string[] = []
let secondRun: DemoRun

const logger = createLogger({ level: 'silent', destination: process.stderr })

async function start(): Promise<Sidecar> {
  const config = loadConfig({
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    BANKREC_DATA_DIR: directory,
    QUEUE_PREFIX: `test-demo-restart-${suffix}`,
    PORT: '0',
    KIT_API_TOKEN: 'test-token-0123456789',
    SANDBOX_ACTIVITY: 'off',
  })
  return startSidecar({ config, roles: new Set(['receiver', 'worker', 'api']), logger, sandboxPort: 0 })
}

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'bankrec-demo-restart-'))
  const first = await start()
  const lines: string[] = []
  const stop = new AbortController()
  let connectionId = ''
  try {
    await runDemoStory(first.context, {
      pace: { kind: 'live', minDelayMs: 0, maxDelayMs: 0 },
      signal: stop.signal,
      say: (line) => {
        lines.push(line)
        const connected = /connected to .* \((.+)\)$/.exec(line)
        if (connected) connectionId = connected[1]!
        // The process is stopped in the middle of the story (Ctrl-C).
        if (lines.filter((l) => /^demo: P\d\d /.test(l)).length === 12) stop.abort()
      },
    })
  } catch (error) {
    if (!stop.signal.aborted) throw error
  }
  const sandboxTransactions = first.context.bank.sandbox!.ctx.state.transactions.size
  await first.close()
  firstRun = { lines, connectionId, sandboxTransactions }
  // As if the same database had also served a real bank: that registration must outlive sandbox restarts.
  await queryTestDatabase(
    `insert into ${schema}.webhook_registrations (id, url, secret) values ('wh_real_bank', '${REAL_BANK_WEBHOOK}', 'whsec_real_bank_secret')`,
  )
  second = await start()
  secondRun = await runDemoStory(second.context, {
    pace: { kind: 'fast' },
    say: (line) => secondLines.push(line),
  })
}, 60_000)

async function queryTestDatabase(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

afterAll(async () => {
  await second?.close()
  await rm(directory, { recursive: true, force: true })
  await dropSidecarSchemas(schema)
})

describe('the demo story after a restart in sandbox mode', () => {
  it('kept the simulated bank in the data directory', () => {
    expect(existsSync(path.join(directory, 'sandbox-state.json'))).toBe(true)
    const paid = firstRun.lines.filter((l) => /^demo: P\d\d /.test(l) && !l.includes(' settled: '))
    expect(firstRun.sandboxTransactions).toBe(paid.length)
  })

  it("keeps one sandbox registration, for this run's port, and leaves a real bank's alone", async () => {
    const current = `${second.url}/webhooks`
    const atBank = [...second.context.bank.sandbox!.ctx.state.webhooks.values()].map((w) => w.url)
    expect(atBank).toEqual([current])
    const stored = await queryTestDatabase(`select url from ${schema}.webhook_registrations order by url`)
    expect(stored.rows.map((r) => r.url)).toEqual([current, REAL_BANK_WEBHOOK].sort())
  })

  it('finds its connection and invoices instead of creating them again', () => {
    expect(firstRun.lines.some((l) => l.startsWith('demo: created connection'))).toBe(true)
    expect(firstRun.lines).toContain('demo: 60 invoices loaded, 0 already there')
    expect(secondLines.some((l) => l.startsWith('demo: created connection'))).toBe(false)
    expect(secondLines).toContain('demo: 0 invoices loaded, 60 already there')
    expect(secondRun.connectionId).toBe(firstRun.connectionId)
    expect(second.context.bank.sandbox!.ctx.state.connections.size).toBe(1)
  })

  it('carries on with the payments not made yet, making none twice', () => {
    expect(secondLines.find((l) => l.startsWith('demo: resuming'))).toBe(
      `demo: resuming: 12 of ${secondRun.plan.steps.length} steps were done before`,
    )
    const markers = [...second.context.bank.sandbox!.ctx.state.transactions.values()].map(
      (t) => t.bankReference,
    )
    expect(markers.sort()).toEqual(secondRun.plan.payments.map(demoMarker).sort())
  })

  it('ends with every payment reconciled', async () => {
    const missing = await waitUntilReconciled(second.context.store.db, secondRun, {
      deadline: Date.now() + 30_000,
    })
    expect(missing.map((m) => `${m.payment.key}: ${m.reason}`)).toEqual([])
  })
})
