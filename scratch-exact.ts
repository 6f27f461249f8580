import { InvoiceIndex, reconcile, type MatchInvoice, type MatchTransaction } from './src/reconcile/matcher/index.js'
const invoices: MatchInvoice[] = Array.from({ length: 100000 }, (_, i) => ({ id: 'inv_' + i, number: 'INV-' + (100000 + i), amount: '123.45', currency: 'EUR', customerName: 'Customer ' + Math.floor(i / 20) + ' GmbH', issueDate: '2024-01-01' }))
const index = new InvoiceIndex(invoices)
const tx: MatchTransaction = { accountId: 'a', currency: 'EUR', status: 'posted', postedDate: '2024-06-01', description: 'SEPA CREDIT TRANSFER', counterpartyName: 'Customer 7 GmbH', id: 't', amount: '123.45', paymentReference: 'INV-100123' }
const inv = [index.get('inv_123')!]
for (let i = 0; i < 300000; i++) reconcile({ index, invoices: inv, transactions: [tx] })
