import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
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

let store: TestDatabase
let env: Record<string, string>
const dir = mkdtempSync(path.join(tmpdir(), 'bankrec-customers-cli-'))

function csvFile(name: string, text: string): string {
  const file = path.join(dir, name)
  writeFileSync(file, text)
  return file
}

beforeAll(async () => {
  store = await createTestDatabase('customers_cli')
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: store.schema,
    LOG_LEVEL: 'silent',
  }
})
afterAll(async () => {
  await store.drop()
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(async () => {
  await sql`truncate customers, customer_links, pending_matches`.execute(store.db)
})

describe('bankrec customers', () => {
  it('imports a customer file with aliases and accounts, then lists it; a second import changes nothing', async () => {
    const file = csvFile(
      'good.csv',
      'id,name,aliases,bankAccounts\n' +
        'cus_1,Müller GmbH,Mueller|Müller Handel,DE89370400440532013000\n' +
        'cus_2,Acme Corp,,\n',
    )
    const t = testIo(env)
    expect(await runCli(['customers', 'import', file], t.io)).toBe(0)
    expect(t.out()).toBe(`imported 2 customers from ${file}: 2 created, 0 updated, 0 unchanged\n`)
    const listed = testIo(env)
    expect(await runCli(['customers', 'list', '--json'], listed.io)).toBe(0)
    const customers = listed
      .out()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; aliases: string[]; bankAccounts: string[] })
    expect(customers.map((c) => c.id)).toEqual(['cus_1', 'cus_2'])
    expect(customers[0]).toMatchObject({
      aliases: ['Mueller', 'Müller Handel'],
      bankAccounts: ['DE89370400440532013000'],
    })
    const byName = testIo(env)
    expect(await runCli(['customers', 'list', '--name', 'MUELLER GMBH'], byName.io)).toBe(0)
    expect(byName.out()).toBe('cus_1\tMüller GmbH\t1 accounts\n')
    const again = testIo(env)
    expect(await runCli(['customers', 'import', file], again.io)).toBe(0)
    expect(again.out()).toContain('0 created, 0 updated, 2 unchanged')
  })

  it('exits 1, lists each bad row with its reasons and imports nothing', async () => {
    const file = csvFile(
      'bad.csv',
      'id,name,aliases,bankAccounts\ncus_ok,Fine Ltd,,\n,No Id Ltd,,\ncus_3,,,\n',
    )
    const t = testIo(env)
    expect(await runCli(['customers', 'import', file], t.io)).toBe(1)
    const lines = t.out().trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^line 3: id /)
    expect(lines[1]).toMatch(/^line 4 \(id cus_3\): name /)
    expect(t.err()).toContain('2 rows are invalid (of 3); nothing was imported')
    const { rows } = await sql<{ n: string }>`select count(*) as n from customers`.execute(store.db)
    expect(Number(rows[0]!.n)).toBe(0)
  })

  it('exits 2 naming a file it cannot read', async () => {
    const t = testIo(env)
    expect(await runCli(['customers', 'import', path.join(dir, 'missing.csv')], t.io)).toBe(2)
    expect(t.err()).toContain('ENOENT')
  })
})
