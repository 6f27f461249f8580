import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { createMatchingService } from '../../src/matching/index.js'
import { createClosingService } from '../../src/closing/index.js'
import { silentLogger } from '../../src/observability/index.js'
import { testIo } from '../cli/test-io.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

let store: MatchingStore
let env: Record<string, string>

beforeAll(async () => {
  store = await createMatchingStore('matching_mode_cli')
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: store.schema,
    LOG_LEVEL: 'silent',
  }
})

afterAll(async () => {
  await store?.drop()
})

async function cli(args: string[], extra: Record<string, string> = {}) {
  const t = testIo({ ...env, ...extra })
  const code = await runCli(args, t.io)
  return { code, out: t.out(), err: t.err() }
}

describe('bankrec matching mode', () => {
  it('shows the environment’s mode until an admin sets one, which the next matching run follows', async () => {
    expect(await cli(['matching', 'mode'], { MATCH_AUTO_APPLY: 'off' })).toMatchObject({
      code: 0,
      out: 'automatic matching: off (MATCH_AUTO_APPLY: nothing stored yet)\n',
    })
    const set = await cli(['matching', 'mode', 'shadow'])
    expect(set.code).toBe(0)
    expect(set.out).toMatch(/^automatic matching: shadow \(set by admin at \d{4}-/)
    expect((await cli(['matching', 'mode'], { MATCH_AUTO_APPLY: 'off' })).out).toContain(
      'shadow (set by admin',
    )
    await store.invoice({ id: 'inv-1', number: 'INV-1', amount: '100' })
    const tx = await store.pay({ amount: '100', paymentReference: 'INV-1' })
    await store.run()
    expect(await store.allocations()).toEqual([])
    expect(await store.openExceptions()).toMatchObject([{ type: 'suggested_match', transaction_id: tx }])
    const audit = await store.db
      .selectFrom('audit_log')
      .select(['actor', 'payload'])
      .where('action', '=', 'matching.mode_changed')
      .execute()
    expect(audit).toEqual([
      { actor: 'admin', payload: { from: 'on', to: 'shadow', previousSource: 'environment' } },
    ])
  })

  it('refuses an unknown mode with exit 2 and a viewer with exit 1, changing nothing', async () => {
    const bad = await cli(['matching', 'mode', 'maybe'])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('maybe')
    const added = await cli(['users', 'add', 'vera', '--role', 'viewer'])
    expect(added.code).toBe(0)
    const refused = await cli(['matching', 'mode', 'on'], { BANKREC_USER_TOKEN: added.out.trim() })
    expect(refused.code).toBe(1)
    expect(refused.err).toContain('needs the admin role; vera is a viewer')
    expect((await cli(['matching', 'mode'])).out).toContain('automatic matching: shadow')
  })
})

describe('bankrec matching trust-report', () => {
  it('prints the shadow decisions, people’s verdicts and the engine’s reasons as a table and as JSON', async () => {
    const [suggestion] = await store.openExceptions()
    const t = testIo(env)
    // A person matches the held-back payment to another invoice: a disagreement.
    await store.invoice({ id: 'inv-2', number: 'INV-2', amount: '100' })
    await store.run()
    const service = createMatchingService({
      db: store.db,
      schema: store.schema,
      backend: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: `test-mode-cli-${store.schema}` },
      clock: store.clock,
      logger: silentLogger,
    })
    const closing = createClosingService({
      db: store.db,
      schema: store.schema,
      clock: store.clock,
      matching: service,
    })
    try {
      await closing.manualMatch(
        { transactionId: suggestion!.transaction_id!, invoiceId: 'inv-2' },
        { name: 'carla', role: 'clerk', kind: 'user' },
      )
    } finally {
      await service.close()
    }
    expect(
      await runCli(['matching', 'trust-report', '--from', '2026-03-01', '--to', '2026-03-31'], t.io),
    ).toBe(0)
    expect(t.out()).toContain('people disagreed     1')
    expect(t.out()).toContain('agreement rate       0.0 % (0 of 1 decided)')
    expect(t.out()).toContain('engine: INV-1 100')
    expect(t.out()).toContain('people: matched other invoices or amounts (carla); now inv-2 100')
    expect(t.out()).toMatch(/ {2}90 {2}.*INV-1/)
    const json = await cli([
      'matching',
      'trust-report',
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-31',
      '--json',
    ])
    expect(json.code).toBe(0)
    const report = JSON.parse(json.out)
    expect(report).toMatchObject({
      from: '2026-03-01',
      to: '2026-03-31',
      mode: { autoApply: 'shadow', source: 'stored' },
      shadow: { lines: 1, agreed: 0, disagreed: 1, agreementRate: 0 },
    })
    // Outside the period: nothing.
    const before = await cli([
      'matching',
      'trust-report',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      '--json',
    ])
    expect(JSON.parse(before.out).shadow.lines).toBe(0)
  })

  it('refuses a bad date, a missing one and from after to with exit 2', async () => {
    expect((await cli(['matching', 'trust-report', '--from', '2026-02-30', '--to', '2026-03-01'])).code).toBe(
      2,
    )
    expect((await cli(['matching', 'trust-report', '--from', '2026-03-01'])).code).toBe(2)
    const reversed = await cli(['matching', 'trust-report', '--from', '2026-03-02', '--to', '2026-03-01'])
    expect(reversed).toMatchObject({ code: 2 })
    expect(reversed.err).toContain('--from must not be after --to')
  })
})
