import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../src/clock/index.js'
import { createInvoices, InvoiceError, type Invoices } from '../../src/invoices/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const HEADER = 'id,number,amount,currency,customerName,customerAliases'
let store: TestDatabase
const clock = createVirtualClock({ start: new Date('2026-03-01T09:00:00Z'), followRealTime: false })

function csvOf(
  count: number,
  row: (index: number) => string = (i) => `inv_${i},INV-${i},${i}.50,EUR,Acme Ltd,`,
) {
  return [HEADER, ...Array.from({ length: count }, (_, index) => row(index + 1))].join('\n') + '\n'
}

async function countInvoices(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from invoices`.execute(store.db)
  return Number(rows[0]!.n)
}

beforeAll(async () => {
  store = await createTestDatabase('invoices_library')
})
afterAll(async () => {
  await store.drop()
})
beforeEach(async () => {
  await sql`truncate invoices, invoice_state`.execute(store.db)
})

describe('invoices.import', () => {
  it('writes nothing when one row of a 1,000-row file is bad, and names that row', async () => {
    const invoices = createInvoices({ store, clock })
    const csv = csvOf(1000, (i) =>
      i === 731 ? `inv_${i},INV-${i},12.5.0,EUR,,` : `inv_${i},INV-${i},${i},EUR,,`,
    )
    const result = await invoices.import(csv)
    expect(result).toMatchObject({ ok: false, rows: 1000 })
    expect(result.ok ? [] : result.errors).toEqual([
      {
        line: 732,
        id: 'inv_731',
        reasons: [{ field: 'amount', message: expect.stringMatching(/plain decimal/) }],
      },
    ])
    expect(await countInvoices()).toBe(0)
  })

  it('writes every row when all are valid, and counts created, updated and unchanged on a second import', async () => {
    const changed: string[][] = []
    const invoices = createInvoices({
      store,
      clock,
      matching: { invoicesChanged: (ids) => void changed.push([...ids]) },
    })
    const progress: number[] = []
    expect(await invoices.import(csvOf(1500), { onWritten: (written) => progress.push(written) })).toEqual({
      ok: true,
      rows: 1500,
      created: 1500,
      updated: 0,
      unchanged: 0,
    })
    expect(progress).toEqual([1000, 1500])
    expect(await countInvoices()).toBe(1500)
    const again = csvOf(1501, (i) =>
      i === 7 ? `inv_7,INV-7,99.00,EUR,Acme Ltd,` : `inv_${i},INV-${i},${i}.50,EUR,Acme Ltd,`,
    )
    expect(await invoices.import(again)).toEqual({
      ok: true,
      rows: 1501,
      created: 1,
      updated: 1,
      unchanged: 1499,
    })
    expect(changed[1]!.sort()).toEqual(['inv_1501', 'inv_7'])
  })

  it('queues matching inside the writing transaction: when that fails nothing is written', async () => {
    const invoices = createInvoices({
      store,
      clock,
      matching: {
        invoicesWritten: async (trx, ids) => {
          expect(await trx.selectFrom('invoices').select('id').where('id', 'in', ids).execute()).toHaveLength(
            2,
          )
          throw new Error('outbox unavailable')
        },
      },
    })
    await expect(invoices.import(csvOf(2))).rejects.toThrow('outbox unavailable')
    expect(await countInvoices()).toBe(0)
  })

  it('keeps the write when matching after the commit fails', async () => {
    const invoices = createInvoices({
      store,
      clock,
      matching: { invoicesChanged: () => Promise.reject(new Error('matcher down')) },
    })
    expect(await invoices.import(csvOf(3))).toMatchObject({ ok: true, created: 3 })
    expect(await countInvoices()).toBe(3)
  })
})

describe('invoices.upsert', () => {
  let invoices: Invoices
  const changed: string[] = []
  beforeAll(() => {
    invoices = createInvoices({
      store,
      clock,
      matching: { invoicesChanged: (ids) => void changed.push(...ids) },
    })
  })

  it('creates, then updates only on a real change, telling matching only of changes', async () => {
    changed.length = 0
    const input = { id: 'u1', number: 'INV-0001001', amount: '250.00', currency: 'USD', customerName: 'Acme' }
    const created = await invoices.upsert(input)
    expect(created).toMatchObject({
      created: true,
      changed: true,
      invoice: { id: 'u1', status: 'open', amountOpen: '250.00', version: 1 },
    })
    expect(await invoices.upsert(input)).toMatchObject({
      created: false,
      changed: false,
      invoice: { version: 1 },
    })
    expect(await invoices.upsert({ ...input, amount: '260.00' })).toMatchObject({
      changed: true,
      invoice: { version: 2 },
    })
    expect(changed).toEqual(['u1', 'u1'])
  })

  it('writes many in one transaction: a bad one, or a repeated id, writes none and names the index', async () => {
    const good = { id: 'm1', number: 'M-1', amount: '1', currency: 'EUR' }
    await expect(invoices.upsert([good, { ...good, id: 'm2', amount: 'x' }])).rejects.toThrow(
      expect.objectContaining({
        code: 'validation_error',
        details: [{ path: '1.amount', message: expect.any(String) }],
      }),
    )
    await expect(invoices.upsert([good, { ...good, number: 'M-2' }])).rejects.toThrow(
      expect.objectContaining({ details: [{ path: '1.id', message: 'repeats the id of invoice 0' }] }),
    )
    expect(await invoices.get('m1')).toBeUndefined()
    const results = await invoices.upsert([good, { ...good, id: 'm2' }])
    expect(results.map((result) => result.invoice.id)).toEqual(['m1', 'm2'])
  })

  it('throws an InvoiceError naming each bad field', async () => {
    const error = await invoices
      .upsert({ id: 'x', number: 'N', amount: 5, currency: 'usd' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvoiceError)
    expect((error as InvoiceError).details?.map((detail) => detail.path)).toEqual(['amount', 'currency'])
  })
})

describe('invoices.list, get and void', () => {
  let invoices: Invoices
  beforeEach(async () => {
    invoices = createInvoices({ store, clock })
    await invoices.upsert([
      { id: 'a', number: 'A-1', amount: '10', currency: 'EUR', customerName: 'Globex GmbH' },
      {
        id: 'b',
        number: 'B-1',
        amount: '20',
        currency: 'EUR',
        customerName: 'Other',
        customerAliases: ['GLOBEX'],
      },
      { id: 'c', number: 'C-1', amount: '30', currency: 'EUR', customerName: 'Initech' },
      { id: 'd', number: 'D-1', amount: '40', currency: 'EUR', customerName: 'Globex' },
    ])
    await sql`insert into invoice_state (invoice_id, status, amount_paid, amount_pending, amount_open, amount_overpaid, amount_written_off, updated_at)
      values ('d', 'paid', 40, 0, 0, 0, 0, now()), ('c', 'open', 0, 5, 30, 0, 0, now())`.execute(store.db)
  })

  it('shows the derived state matching keeps', async () => {
    expect(await invoices.get('d')).toMatchObject({ status: 'paid', amountPaid: '40', amountOpen: '0' })
    expect(await invoices.get('c')).toMatchObject({ status: 'open', amountPending: '5' })
  })

  it('filters by derived status, counting invoices matching has not seen as open', async () => {
    const ids = async (status: string) => (await invoices.list({ status })).data.map((invoice) => invoice.id)
    expect(await ids('open')).toEqual(['a', 'b', 'c'])
    expect(await ids('paid')).toEqual(['d'])
    await invoices.void('a')
    expect(await ids('void')).toEqual(['a'])
    expect(await ids('open')).toEqual(['b', 'c'])
  })

  it('filters by customer name or alias, normalized, and pages with a cursor', async () => {
    const first = await invoices.list({ customer: 'globex ltd', limit: 2 })
    expect(first.data.map((invoice) => invoice.id)).toEqual(['a', 'b'])
    expect(first.pagination.hasMore).toBe(true)
    const second = await invoices.list({
      customer: 'globex ltd',
      limit: 2,
      cursor: first.pagination.nextCursor!,
    })
    expect(second).toMatchObject({ data: [{ id: 'd' }], pagination: { hasMore: false, nextCursor: null } })
    await expect(
      invoices.list({ customer: 'initech', cursor: first.pagination.nextCursor! }),
    ).rejects.toThrow(expect.objectContaining({ code: 'invalid_cursor' }))
  })

  it('refuses a limit outside 1–500 and an unknown status, naming the parameter', async () => {
    for (const [params, path] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: '501' }, 'limit'],
      [{ limit: '2.5' }, 'limit'],
      [{ status: 'unpaid' }, 'status'],
    ] as const) {
      await expect(invoices.list(params)).rejects.toThrow(
        expect.objectContaining({ details: [expect.objectContaining({ path })] }),
      )
    }
  })

  it('voids and keeps the row; voiding again changes nothing; an unknown id is undefined', async () => {
    const voided = await invoices.void('b')
    expect(voided).toMatchObject({ id: 'b', status: 'void', voidedAt: clock.now().toISOString(), version: 2 })
    expect(await invoices.void('b')).toMatchObject({ version: 2 })
    expect(await invoices.void('nope')).toBeUndefined()
    expect(await invoices.get('b')).toMatchObject({ status: 'void' })
  })
})
