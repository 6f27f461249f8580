import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { upsertTransactions } from '../../src/store/index.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  TEST_SECRET_KEY,
} from '../support/test-database.js'
import { testIo } from './test-io.js'

let database: TestDatabase
let env: Record<string, string>
let dir: string

beforeAll(async () => {
  database = await createTestDatabase('remittance_cli')
  dir = await mkdtemp(join(tmpdir(), 'remittance-cli-'))
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: database.schema,
    LOG_LEVEL: 'silent',
    KIT_API_TOKEN_NAME: 'ops',
    MATCH_WRITE_OFF_ACCOUNTS: 'psp_fee=6830',
  }
})

afterAll(async () => {
  await database?.drop()
  await rm(dir, { recursive: true, force: true })
})

async function cli(args: string[]) {
  const t = testIo(env)
  const code = await runCli(args, t.io)
  return { code, out: t.out(), err: t.err() }
}

async function file(name: string, text: string) {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

const allocations = (transactionId: string) =>
  database.db
    .selectFrom('allocations')
    .select(['invoice_id', 'amount', 'write_off', 'write_off_reason', 'write_off_account', 'actor'])
    .where('transaction_id', '=', transactionId)
    .where('reversed_at', 'is', null)
    .orderBy('invoice_id')
    .execute()

describe('bankrec remittance import', () => {
  it('settles a payout by its report, the PSP fee written off, and refuses one that does not add up', async () => {
    const invoices = await file(
      'invoices.csv',
      'id,number,amount,currency\ninv-p1,PO-1,120.00,EUR\ninv-p2,PO-2,80.00,EUR\ninv-p3,PO-3,50.00,EUR\n',
    )
    expect((await cli(['invoices', 'import', invoices])).code).toBe(0)
    await upsertTransactions(database.db, [
      mirrorRow(1, { amount: '194.00', currency: 'EUR', payment_reference: null, description: null }),
      mirrorRow(2, { amount: '40.00', currency: 'EUR', payment_reference: null, description: null }),
    ])

    const report = await file('payout.csv', 'invoiceNumber,amount,fee\nPO-1,120.00,3.60\nPO-2,80.00,2.40\n')
    const done = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(1),
      '--fee-reason',
      'psp_fee',
      report,
    ])
    expect(done.err).toBe('')
    expect(done.code).toBe(0)
    expect(done.out).toContain('2 invoices, 6 written off (difference 0)')
    expect(await allocations(txId(1))).toEqual([
      {
        invoice_id: 'inv-p1',
        amount: '114',
        write_off: '6',
        write_off_reason: 'psp_fee',
        write_off_account: '6830',
        actor: 'ops',
      },
      {
        invoice_id: 'inv-p2',
        amount: '80',
        write_off: '0',
        write_off_reason: null,
        write_off_account: null,
        actor: 'ops',
      },
    ])

    const off = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(2),
      await file('off.csv', 'invoiceNumber,amount\nPO-3,50.00\n'),
    ])
    expect(off.code).toBe(1)
    expect(off.err).toContain('off by 10.00')
    expect(off.out).toContain('lines.1: invoice PO-3')
    expect(await allocations(txId(2))).toEqual([])

    const bad = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(2),
      await file('bad.csv', 'invoiceNumber,amount\nPO-3,-5\n'),
    ])
    expect(bad.code).toBe(1)
    expect(bad.out).toContain('amount')
    expect(await allocations(txId(2))).toEqual([])
  })

  it('recognises a camt.054 by its content, and chooses the entry asked for', async () => {
    const invoices = await file(
      'camt-invoices.csv',
      'id,number,amount,currency\ninv-c1,INV-8001,600.00,EUR\ninv-c2,INV-8002,450.00,EUR\n' +
        'inv-c3,INV-8003,400.00,EUR\ninv-c10,INV-8010,250.00,EUR\n',
    )
    expect((await cli(['invoices', 'import', invoices])).code).toBe(0)
    await upsertTransactions(database.db, [
      mirrorRow(3, { amount: '1441.30', currency: 'EUR', payment_reference: null, description: null }),
      mirrorRow(4, { amount: '250.00', currency: 'EUR', payment_reference: null, description: null }),
    ])
    const payout = new URL('../../fixtures/camt054/psp-payout.xml', import.meta.url).pathname
    const done = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(3),
      '--fee-reason',
      'psp_fee',
      payout,
    ])
    expect(done.err).toBe('')
    expect(done.code).toBe(0)
    expect(done.out).toContain('3 invoices, 8.7 written off (difference 0)')
    expect(await allocations(txId(3))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          invoice_id: 'inv-c1',
          amount: '591.3',
          write_off: '8.7',
          write_off_account: '6830',
        }),
      ]),
    )

    // The same file under another name, its format given: the entry asked for does not fit this bank line.
    const renamed = await file('payout.dat', await readFile(payout, 'utf8'))
    const misfit = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(4),
      '--format',
      'camt054',
      '--entry',
      'po_1QfX83Lk',
      renamed,
    ])
    expect(misfit.code).toBe(1)
    expect(misfit.err).toContain('Entry "po_1QfX83Lk" is of another amount')
    expect(
      (await cli(['remittance', 'import', '--transaction', txId(4), '--entry', 'PSP2026030400012', renamed]))
        .code,
    ).toBe(0)
    expect(await allocations(txId(4))).toMatchObject([{ invoice_id: 'inv-c10', amount: '250' }])

    const broken = await cli([
      'remittance',
      'import',
      '--transaction',
      txId(4),
      await file('x.xml', '<Document>'),
    ])
    expect(broken.code).toBe(1)
    expect(broken.err).toContain('not well-formed XML')
  })
})
