import { describe, expect, it } from 'vitest'
import { matchPayments } from './match-payments.js'
import type { MatchCustomer, MatchInvoice, MatchTransaction } from './types.js'

const customers: MatchCustomer[] = [
  { id: 'jaeger', name: 'Jäger Bau GmbH', bankAccounts: ['DE51500105176511349705'] },
  { id: 'makinen', name: 'Mäkinen Software Ky', bankAccounts: [] },
]
const own: MatchInvoice = {
  id: 'own',
  number: 'INV-2026-01052',
  amount: '31.79',
  currency: 'EUR',
  customerId: 'jaeger',
  issueDate: '2026-03-08',
}
const strangers: MatchInvoice = {
  id: 'stranger',
  number: '2600716',
  amount: '2733.43',
  currency: 'EUR',
  customerId: 'makinen',
  issueDate: '2026-01-09',
}
const mt940 = (svwz: string, iban = 'DE51500105176511349705'): MatchTransaction => ({
  id: 't',
  accountId: 'acc_eur',
  amount: '31.79',
  currency: 'EUR',
  status: 'posted',
  postedDate: '2026-03-31',
  description: `166?00SEPA-UEBERWEISUNG?109310?20EREF+NOTPROVIDED?21SVWZ+${svwz}?30BYLADEMMXXX?31${iban}?32JAEGER BAU GMBH?34000`,
  counterpartyName: 'JAEGER BAU GMBH',
  counterpartyAccountMasked: iban,
})
const run = (transaction: MatchTransaction) =>
  matchPayments({ invoices: [own, strangers], customers, transactions: [transaction] })

describe('labelled numbers of other customers (rule 14)', () => {
  it.each(['Auftrags-Nr. 2600716', 'Vertrags-Nr. 2600716', 'Bestell-Nr. 2600716', 'Auftragsnummer 2600716'])(
    '“%s” from the verified payer: its own invoice at the amount is applied, not the other customer’s',
    (svwz) => {
      const result = run(mt940(svwz))
      expect(result.allocations.map((item) => [item.invoiceId, item.rule])).toEqual([['own', 'payer']])
      expect(result.allocations[0]?.evidence.map((item) => item.code)).toContain('set_aside')
    },
  )

  it('applies nothing from an account not on file: the number stays a conflict', () => {
    const result = run(mt940('Auftrags-Nr. 2600716', 'DE11100100101234567890'))
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]?.type).toBe('suggested_match')
  })

  it('applies nothing when the labelled number is not explained: an unlabelled one names the other invoice', () => {
    const result = run(mt940('2600716'))
    expect(result.allocations).toEqual([])
  })
})

describe('another document’s prefix on another customer’s number (rule 14)', () => {
  const quote: MatchInvoice = { ...strangers, id: 'quote-twin', number: 'INV-2026-00118', amount: '78.84' }
  const sepa = (paymentReference: string): MatchTransaction => ({
    ...mt940(''),
    description: 'VIREMENT SEPA RECU',
    paymentReference,
  })

  it('lets an acompte on a quote wait although its number is the core of another customer’s invoice', () => {
    const result = matchPayments({
      invoices: [own, quote],
      customers,
      transactions: [sepa('ACOMPTE 30 % DEVIS D-2026-118')],
    })
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]).toMatchObject({ type: 'unmatched_payment', invoiceIds: [] })
  })
})

describe('a number in an invoice’s own printed form under a label (rule 14’s limit)', () => {
  const printed: MatchInvoice = { ...strangers, id: 'printed', number: 'INV-2026-00785', amount: '31.79' }
  const sister: MatchCustomer = { id: 'jaeger-at', name: 'Jäger Bau GmbH', bankAccounts: [] }
  const runWith = (transaction: MatchTransaction, invoice: MatchInvoice) =>
    matchPayments({
      invoices: [own, invoice],
      customers: [...customers, sister],
      transactions: [transaction],
    })

  it.each([
    ['another customer’s invoice', printed],
    [
      'the invoice of a customer of the same name (a sister company)',
      { ...printed, customerId: 'jaeger-at' },
    ],
  ])('suggests, at the exact amount from the verified payer, when it names %s', (_why, invoice) => {
    const result = runWith(mt940('Auftrags-Nr. INV-2026-?2200785'), invoice)
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]?.type).toBe('suggested_match')
    expect(result.exceptions[0]?.evidence?.map((item) => item.code)).toContain('conflict_labelled_invoice')
  })

  it('applies the payer’s own invoice named in its printed form under the label', () => {
    const result = runWith(mt940('Auftrags-Nr. INV-2026-01052'), printed)
    expect(result.allocations.map((item) => item.invoiceId)).toEqual(['own'])
  })
})
