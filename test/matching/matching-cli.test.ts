import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { testIo } from '../cli/test-io.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

let store: MatchingStore
let env: Record<string, string>

beforeAll(async () => {
  store = await createMatchingStore('matching_cli')
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: store.schema,
    LOG_LEVEL: 'silent',
  }
  await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100', dueDate: '2026-01-01' })
  await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '30' })
  await store.pay({ amount: '100', paymentReference: 'INV-1', postedDate: '2026-03-01' })
  await store.pay({ amount: '7', description: 'unknown', postedDate: '2026-03-01' })
  await store.run()
})

afterAll(async () => {
  await store?.drop()
})

describe('bankrec report', () => {
  it('prints counts, amounts, the match rate and open receivables as JSON', async () => {
    const t = testIo(env)
    expect(
      await runCli(['report', '--from', '2026-03-01', '--to', '2026-03-31', '--format', 'json'], t.io),
    ).toBe(0)
    const report = JSON.parse(t.out())
    expect(report).toMatchObject({
      inflows: { count: 2, amounts: { USD: '107' } },
      matched: { count: 1, amounts: { USD: '100' } },
      unmatched: { count: 1, amounts: { USD: '7' } },
      matchRate: 0.5,
    })
    expect(report.openReceivables.find((bucket: any) => bucket.bucket === 'current')).toMatchObject({
      count: 1,
      amounts: { USD: '30' },
    })
  })

  it('prints CSV and text', async () => {
    const csv = testIo(env)
    expect(await runCli(['report', '--format', 'csv'], csv.io)).toBe(0)
    expect(csv.out()).toContain('matched,,USD,1,100')
    const text = testIo(env)
    expect(await runCli(['report'], text.io)).toBe(0)
    expect(text.out()).toContain('Match rate:         50.0 %')
  })

  it('refuses a bad date with exit 2', async () => {
    expect(await runCli(['report', '--from', 'yesterday'], testIo(env).io)).toBe(2)
  })
})

describe('bankrec audit verify', () => {
  it('exits 0 on an intact chain and 1 with the first broken seq', async () => {
    const intact = testIo(env)
    expect(await runCli(['audit', 'verify'], intact.io)).toBe(0)
    expect(intact.out()).toMatch(/audit log intact: \d+ entries/)
    await store.db.transaction().execute(async (trx) => {
      await sql`alter table audit_log disable trigger audit_log_no_update_or_delete`.execute(trx)
      await sql`update audit_log set actor = 'someone else' where seq = 2`.execute(trx)
      await sql`alter table audit_log enable trigger audit_log_no_update_or_delete`.execute(trx)
    })
    const broken = testIo(env)
    expect(await runCli(['audit', 'verify'], broken.io)).toBe(1)
    expect(broken.out()).toContain('audit log broken at seq 2')
  })
})
