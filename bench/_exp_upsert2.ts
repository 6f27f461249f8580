import { randomUUID, randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { createDatabase, migrateToLatest, upsertTransactions, type TransactionRow } from '../src/store/index.js'

const store = createDatabase({ connectionString: 'postgres://postgres@127.0.0.1:5432/test', schema: `exp_${randomBytes(3).toString('hex')}` })
await migrateToLatest(store.db, store.schema)
const N = 10000
const mk = (i: number): TransactionRow => ({
  id: randomUUID(), connection_id: 'c0000000-0000-4000-8000-000000000000', account_id: 'a0000000-0000-4000-8000-000000000000',
  posted_date: '2026-01-05', updated_at: '2026-03-02T09:00:00.000Z', amount: '12.34', currency: 'USD', description: `Bench payment ${i}, "quoted"`,
  raw_description: 'ACH CREDIT BENCH', customer_reference: 'CUST-1', bank_reference: 'BR1', payment_reference: `INV-${i}`, bai_code: '195', category: 'income', subcategory: 'invoice',
  mcc: null, merchant_name: null, counterparty_name: 'Bench Customer Ltd', counterparty_account_masked: '••4321', status: 'posted', entry_type: 'credit', rail: 'ach',
  last_event_id: `sev_${randomUUID()}`, backfill_run: null,
})
const cols = ['id','connection_id','account_id','posted_date','updated_at','amount','currency','description','raw_description','customer_reference','bank_reference','payment_reference','bai_code','category','subcategory','mcc','merchant_name','counterparty_name','counterparty_account_masked','status','entry_type','rail','last_event_id','backfill_run'] as const
const upd = cols.filter(c => c !== 'id').map(c => `${c} = excluded.${c}`).join(', ')
const variants: Record<string, (rows: TransactionRow[]) => Promise<unknown>> = {
  unnest: (r) => upsertTransactions(store.db, r),
  json: (rows) => store.pool.query(`insert into transactions (${cols.join(',')}) select ${cols.join(',')} from json_populate_recordset(null::transactions, $1::json) on conflict (id) do update set ${upd}, mirrored_at = now()`, [JSON.stringify(rows)]),
}
const totals: Record<string, { wall: number; cpu: number }> = {}
for (let round = 0; round < 6; round++) {
  for (const [name, f] of Object.entries(variants)) {
    await sql`truncate transactions`.execute(store.db)
    const rows = Array.from({ length: N }, (_, i) => mk(i))
    const cpu = process.cpuUsage(); const t = performance.now()
    for (let i = 0; i < N; i += 500) await f(rows.slice(i, i + 500))
    const c = process.cpuUsage(cpu)
    const tot = (totals[name] ??= { wall: 0, cpu: 0 }); tot.wall += performance.now() - t; tot.cpu += (c.user + c.system) / 1000
  }
}
for (const [name, t] of Object.entries(totals)) console.log(name, Math.round(6 * N / (t.wall / 1000)), 'rows/s; node cpu µs/row', (t.cpu * 1000 / (6 * N)).toFixed(1))
await sql`drop schema ${sql.id(store.schema)} cascade`.execute(store.db)
await store.db.destroy()
