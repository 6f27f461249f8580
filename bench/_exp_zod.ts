import { randomUUID } from 'node:crypto'
import { SyncResponse } from '../src/api-client/index.js'
const events = Array.from({ length: 500 }, (_, i) => ({ eventId: `sev_${randomUUID()}`, eventAt: '2026-03-02T09:00:00.000Z', type: 'added', transaction: {
  id: randomUUID(), connectionId: randomUUID(), accountId: randomUUID(), postedDate: '2026-01-05', updatedAt: '2026-03-02T09:00:00.000Z', amount: '12.34', currency: 'USD', description: `Bench payment ${i}, "quoted"`,
  rawDescription: 'ACH CREDIT BENCH', customerReference: 'CUST-1', bankReference: 'BR1', paymentReference: `INV-${i}`, baiCode: '195', category: 'income', subcategory: 'invoice',
  mcc: null, merchantName: null, counterpartyName: 'Bench Customer Ltd', counterpartyAccountMasked: '••4321', status: 'posted', entryType: 'credit', rail: 'ach' } }))
const body = JSON.stringify({ events, nextCursor: 'sc_x', hasMore: true, meta: { requestId: 'r' } })
console.log('page bytes', body.length)
for (const [name, f] of [['JSON.stringify', () => JSON.stringify({ events })], ['JSON.parse', () => JSON.parse(body)], ['zod parse', () => SyncResponse.parse(JSON.parse(body))]] as const) {
  for (let i = 0; i < 20; i++) f()
  const t = performance.now(); for (let i = 0; i < 100; i++) f()
  console.log(name, ((performance.now() - t) / 100 / 500 * 1000).toFixed(2), 'µs/row')
}
