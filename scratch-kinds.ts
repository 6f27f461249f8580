import { InvoiceIndex, findReferences, reconcile, normalizeReference, type MatchInvoice, type MatchTransaction } from './src/reconcile/matcher/index.js'
const invoices: MatchInvoice[] = Array.from({ length: 100000 }, (_, i) => ({ id: 'inv_' + i, number: 'INV-' + (100000 + i), amount: '123.45', currency: 'EUR', customerName: 'Customer ' + Math.floor(i / 20) + ' GmbH', issueDate: '2024-01-01' }))
const index = new InvoiceIndex(invoices)
const base = { accountId: 'a', currency: 'EUR', status: 'posted' as const, postedDate: '2024-06-01', description: 'SEPA CREDIT TRANSFER', counterpartyName: 'Customer 7 GmbH' }
const kinds: Record<string, MatchTransaction> = {
  exact: { ...base, id: 't', amount: '123.45', paymentReference: 'INV-100123' },
  free: { ...base, id: 't', amount: '123.45', description: 'Payment for invoice INV-100123 thank you, order 44812' },
  noref: { ...base, id: 't', amount: '12.34', paymentReference: 'Thanks for the great work', description: 'TRANSFER' },
  suggest: { ...base, id: 't', amount: '246.90', paymentReference: 'Thanks for the great work', description: 'TRANSFER' },
}
function run(name: string, f: () => unknown) {
  for (let i = 0; i < 20000; i++) f()
  const s = process.hrtime.bigint(); for (let i = 0; i < 100000; i++) f()
  console.log(name, (Number(process.hrtime.bigint() - s) / 1e5 / 1000).toFixed(2), 'µs')
}
for (const [k, tx] of Object.entries(kinds)) {
  run(k + ' refs', () => findReferences(index, tx))
  run(k + ' normalize', () => normalizeReference(tx.paymentReference ?? tx.description ?? ''))
  const refs = findReferences(index, tx)
  const inv = refs.outcome === 'named' ? refs.invoices.map((n) => index.get(n.invoiceId)!) : index.ofCustomer(tx.counterpartyName)
  run(k + ' ofCustomer', () => index.ofCustomer(tx.counterpartyName))
  run(k + ' reconcile', () => reconcile({ index, invoices: inv, transactions: [tx] }))
}
