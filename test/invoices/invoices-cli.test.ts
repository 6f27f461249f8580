import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { testIo } from '../cli/test-io.js'
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  TEST_SECRET_KEY,
} from '../support/test-database.js'

const fixtures = fileURLToPath(new URL('../../fixtures/invoices/', import.meta.url))
let store: TestDatabase
let env: Record<string, string>

async function countInvoices(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from invoices`.execute(store.db)
  return Number(rows[0]!.n)
}

beforeAll(async () => {
  store = await createTestDatabase('invoices_cli')
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: store.schema,
    LOG_LEVEL: 'silent',
  }
})
afterAll(async () => {
  await store.drop()
})
beforeEach(async () => {
  await sql`truncate invoices, pending_matches`.execute(store.db)
})

describe('bankrec invoices import', () => {
  it('imports the demo file, queues it for matching, exits 0, prints the counts and plain progress lines off a terminal', async () => {
    const t = testIo(env)
    const file = path.join(fixtures, 'demo.csv')
    expect(await runCli(['invoices', 'import', file], t.io)).toBe(0)
    expect(t.out()).toBe(`imported 60 invoices from ${file}: 60 created, 0 updated, 0 unchanged\n`)
    expect(t.err()).toMatch(/^checking: 100% \(\d+ of \d+ bytes\)$/m)
    expect(t.err()).toContain('importing: 100% (60 of 60 invoices)')
    expect(await countInvoices()).toBe(60)
    const { rows: queued } = await sql<{ n: string }>`
      select count(*) as n from pending_matches where kind = 'invoice'`.execute(store.db)
    expect(Number(queued[0]!.n)).toBe(60)
    const again = testIo(env)
    expect(await runCli(['invoices', 'import', file], again.io)).toBe(0)
    expect(again.out()).toContain('0 created, 0 updated, 60 unchanged')
  })

  it('draws a progress bar on a terminal', async () => {
    const t = testIo(env)
    Object.assign(t.io.stderr, { isTTY: true, columns: 100 })
    t.io.isTerminal = true
    expect(await runCli(['invoices', 'import', path.join(fixtures, 'demo.csv')], t.io)).toBe(0)
    expect(t.err()).toMatch(/importing \[[█░]+\] 100% \| 60\/60 invoices/)
  })

  it('exits 1, lists every bad row with its reasons and imports nothing', async () => {
    const t = testIo(env)
    expect(await runCli(['invoices', 'import', path.join(fixtures, 'bad-rows.csv')], t.io)).toBe(1)
    const lines = t.out().trimEnd().split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[0]).toMatch(/^line 3 \(id bad_amount\): amount must be a plain decimal/)
    expect(lines[1]).toMatch(
      /^line 4 \(id bad_many\): amount must be greater than 0; currency must be 3 to 12/,
    )
    expect(lines[4]).toBe('line 8: has 3 fields; the header has 11')
    expect(t.err()).toContain('bankrec: 5 rows are invalid (of 7); nothing was imported')
    expect(await countInvoices()).toBe(0)
  })

  it('imports nothing from a 1,000-row file with one bad row', async () => {
    const file = path.join(tmpdir(), `invoices-${process.pid}-1000.csv`)
    const rows = Array.from(
      { length: 1000 },
      (_, i) => `inv_${i},INV-${i},${i === 999 ? 'ten' : '10.00'},EUR`,
    )
    writeFileSync(file, ['id,number,amount,currency', ...rows].join('\n'))
    try {
      const t = testIo(env)
      expect(await runCli(['invoices', 'import', file], t.io)).toBe(1)
      expect(t.out()).toMatch(/^line 1001 \(id inv_999\): amount/)
      expect(await countInvoices()).toBe(0)
    } finally {
      rmSync(file, { force: true })
    }
  })

  it('exits 2 for a missing file or argument', async () => {
    const missing = testIo(env)
    expect(await runCli(['invoices', 'import', path.join(fixtures, 'no-such.csv')], missing.io)).toBe(2)
    expect(missing.err()).toMatch(/cannot read .*no-such\.csv: ENOENT/)
    const noArgument = testIo(env)
    expect(await runCli(['invoices', 'import'], noArgument.io)).toBe(2)
    expect(noArgument.err()).toMatch(/missing required argument/)
  })
})
