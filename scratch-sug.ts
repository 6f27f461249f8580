import { InvoiceIndex, reconcile, type MatchInvoice, type MatchTransaction } from './src/reconcile/matcher/index.js'
const invoices: MatchInvoice[] = Array.from({ length: 100000 }, (_, i) => ({ id: 'inv_' + i, number: 'INV-' + (100000 + i), amount: '123.45', currency: 'EUR', customerName: 'Customer ' + Math.floor(i / 20) + ' GmbH', issueDate: '2024-01-01' }))
const index = new InvoiceIndex(invoices)
const tx: MatchTransaction = { accountId: 'a', currency: 'EUR', status: 'posted', postedDate: '2024-06-01', description: 'TRANSFER', counterpartyName: 'Customer 7 GmbH', id: 't', amount: process.argv[2] ?? '12.34', paymentReference: 'Thanks for the great work' }
const inv = index.ofCustomer('Customer 7 GmbH')
for (let i = 0; i < 300000; i++) reconcile({ index, invoices: inv, transactions: [tx] })
