import { randomUUID, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { createDatabase, migrateToLatest, upsertTransactions, type TransactionRow } from '../src/store/index.js'

const store = createDatabase({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', schema: `exp_${randomBytes(3).toString('hex')}` })
await migrateToLatest(store.db, store.schema)
const N = 20000
const mk = (i: number): TransactionRow => ({
  id: randomUUID(), connection_id: 'c0000000-0000-4000-8000-000000000000', account_id: 'a0000000-0000-4000-8000-000000000000',
  posted_date: '2026-01-05', updated_at: '2026-03-02T09:00:00.000Z', amount: '12.34', currency: 'USD', description: `Bench payment ${i}, "quoted"`,
  raw_description: 'ACH', customer_reference: 'C', bank_reference: 'B', payment_reference: `INV-${i}`, bai_code: '195', category: 'x', subcategory: 'y',
  mcc: null, merchant_name: null, counterparty_name: 'Bench', counterparty_account_masked: '••', status: 'posted', entry_type: 'credit', rail: 'ach',
  last_event_id: `sev_${i}`, backfill_run: null,
})
async function time(name: string, f: (rows: TransactionRow[]) => Promise<void>) {
  await sql`truncate transactions`.execute(store.db)
  const rows = Array.from({ length: N }, (_, i) => mk(i))
  const t = performance.now()
  for (let i = 0; i < N; i += 500) await f(rows.slice(i, i + 500))
  console.log(name, Math.round(N / ((performance.now() - t) / 1000)), 'rows/s')
}
if (process.env.DROPIDX) { await sql`drop index transactions_keyset_by_account`.execute(store.db); await sql`drop index transactions_keyset_by_connection`.execute(store.db) }
if (process.env.DROPIDX2) { await sql`drop index transactions_by_connection`.execute(store.db) }
await time('kysely values', (r) => upsertTransactions(store.db, r))
const cols = ['id','connection_id','account_id','posted_date','updated_at','amount','currency','description','raw_description','customer_reference','bank_reference','payment_reference','bai_code','category','subcategory','mcc','merchant_name','counterparty_name','counterparty_account_masked','status','entry_type','rail','last_event_id','backfill_run'] as const
const upd = cols.filter(c => c !== 'id').map(c => `${c} = excluded.${c}`).join(', ')
await time('json_populate_recordset', async (rows) => {
  await store.pool.query(`insert into transactions (${cols.join(',')}) select ${cols.join(',')} from json_populate_recordset(null::transactions, $1::json) on conflict (id) do update set ${upd}, mirrored_at = now()`, [JSON.stringify(rows)])
})
const types: Record<string,string> = { id: 'uuid', account_id: 'uuid', posted_date: 'date', updated_at: 'timestamptz', amount: 'numeric' }
await time('unnest', async (rows) => {
  const params = cols.map(c => rows.map(r => (r as any)[c] ?? null))
  await store.pool.query(`insert into transactions (${cols.join(',')}) select * from unnest(${cols.map((c, i) => `$${i+1}::${types[c] ?? 'text'}[]`).join(',')}) on conflict (id) do update set ${upd}, mirrored_at = now()`, params)
})
await time('json_populate_recordset no-index-keyset', async (rows) => {
  await store.pool.query(`insert into transactions (${cols.join(',')}) select ${cols.join(',')} from json_populate_recordset(null::transactions, $1::json) on conflict (id) do update set ${upd}, mirrored_at = now()`, [JSON.stringify(rows)])
}).catch(() => 0)
await sql`drop schema ${sql.id(store.schema)} cascade`.execute(store.db)
await store.db.destroy()
