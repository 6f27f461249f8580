import { describe, expect, it } from 'vitest'
import { matchPayments } from './match-payments.js'
import { statedInstalment } from './stated-parts.js'
import type { MatchCustomer, MatchInvoice, MatchTransaction } from './types.js'

const IBAN = 'DE26500105174279108555'
const customers: MatchCustomer[] = [
  { id: 'koehler', name: 'Köhler Elektro e.K.', bankAccounts: [IBAN] },
  { id: 'dupont', name: 'Dupont SAS', bankAccounts: ['FR7610107762484674007677388'] },
]
const invoice = (id: string, number: string, amount: string, customerId = 'koehler'): MatchInvoice => ({
  id,
  number,
  amount,
  currency: 'EUR',
  customerId,
  issueDate: '2025-09-18',
})
const named = invoice('named', 'INV-2025-00299', '238.00')
const twin = invoice('twin', 'INV-2025-00931', '119.00')
const stranger = invoice('stranger', 'INV-2025-00400', '1000.00', 'dupont')
const tx = (
  amount: string,
  paymentReference: string,
  fields: Partial<MatchTransaction> = {},
): MatchTransaction => ({
  id: 't',
  accountId: 'acc_eur',
  amount,
  currency: 'EUR',
  status: 'posted',
  postedDate: '2025-10-12',
  paymentReference,
  description: 'SEPA CREDIT TRANSFER',
  counterpartyName: 'KOEHLER ELEKTRO E.K.',
  counterpartyAccountMasked: 'DE26 5001 0517 4279 1085 55',
  ...fields,
})
const unknownAccount = { counterpartyAccountMasked: 'DE11 1001 0010 1234 5678 90' }
const run = (transaction: MatchTransaction) =>
  matchPayments({ invoices: [named, twin, stranger], customers, transactions: [transaction] })
const codes = (result: ReturnType<typeof run>) =>
  [
    ...result.allocations.flatMap((item) => item.evidence),
    ...result.exceptions.flatMap((item) => item.evidence),
  ].map((item) => item.code)

describe('statedInstalment', () => {
  it.each([
    ['INV-2025-00299 1. RATE VON 2', 1, 2],
    ['Rate 2/3 Rechnung INV-2025-00299', 2, 3],
    ['Teilzahlung 1 von 4', 1, 4],
    ['INSTALMENT 1 OF 3 INVOICE 4711', 1, 3],
    ['2nd installment of 4', 2, 4],
    ['ÉCHÉANCE 1/2 FACTURE F-17', 1, 2],
    ['1E ECHEANCE SUR 3', 1, 3],
    ['Termijn 1 van 2 factuur 88', 1, 2],
  ])('reads “%s” as instalment %i of %i', (text, n, m) =>
    expect(statedInstalment(tx('1', text))).toMatchObject({ n, m }),
  )

  it.each(['INV-2025-00299', 'payment 1 of 2 invoices', 'RATA 01/02/2026', 'Rate 1 von 48'])(
    'reads “%s” as none',
    (text) => expect(statedInstalment(tx('1', text))).toBeNull(),
  )

  it.each(['RATE 3 VON 2', '3. RATE VON 2 RECHNUNG INV-2025-00299', 'Rate 1/1', 'Rate 0 von 3'])(
    'reads “%s” as an instalment that cannot exist',
    (text) => expect(statedInstalment(tx('1', text))).toMatchObject({ possible: false }),
  )
})

describe('stated instalments (rule 13)', () => {
  it('applies the stated half of the named invoice although another invoice of the customer has the amount', () => {
    const result = run(tx('119.00', 'INV-2025-00299 1. RATE VON 2'))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount])).toEqual([['named', '119']])
    expect(codes(result)).toContain('instalment_stated')
  })

  it('suggests when the amount is not the stated instalment', () => {
    const result = run(tx('79.33', 'INV-2025-00299 1. RATE VON 2'))
    expect(result.allocations).toEqual([])
    expect(codes(result)).toContain('conflict_instalment')
  })

  it('suggests an instalment that cannot exist, although the payer is verified and the amount a half', () => {
    const result = run(tx('119.00', '3. RATE VON 2 RECHNUNG INV-2025-00299'))
    expect(result.allocations).toEqual([])
    expect(codes(result)).toContain('conflict_instalment')
  })

  it('suggests when the payer is not verified and another invoice has the amount', () => {
    const result = run(tx('119.00', 'INV-2025-00299 1. RATE VON 2', unknownAccount))
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]?.type).toBe('suggested_match')
  })
})

describe('an advance on a named invoice (rule 6)', () => {
  it('is a part payment of that invoice from the verified payer', () => {
    const result = run(tx('95.20', 'ACOMPTE SUR FACTURE INV-2025-00299'))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount])).toEqual([['named', '95.2']])
    expect(codes(result)).toContain('advance_on_invoice')
  })

  it.each([
    ['from an unknown account', tx('95.20', 'ACOMPTE SUR FACTURE INV-2025-00299', unknownAccount)],
    ['naming another customer’s invoice', tx('300.00', 'Anzahlung auf Rechnung INV-2025-00400')],
    ['on another number than the invoice named', tx('95.20', 'ACOMPTE SUR DEVIS D-17 INV-2025-00299')],
  ])('applies nothing %s', (_why, transaction) => {
    const result = run(transaction)
    expect(result.allocations).toEqual([])
    expect(codes(result)).toContain('advance_payment')
  })

  it.each(['285.60', '238.01'])(
    'suggests an advance of %s on an invoice of 238.00: more than it has open',
    (amount) => {
      const result = run(tx(amount, 'ACOMPTE SUR FACTURE INV-2025-00299'))
      expect(result.allocations).toEqual([])
      expect(result.exceptions[0]?.type).toBe('suggested_match')
      expect(codes(result)).toContain('conflict_advance_over')
    },
  )

  it.each([
    ['with its share stated', 'ACOMPTE 40 % SUR FACTURE INV-2025-00299'],
    ['with its number wrapped at a line end', 'Anzahlung auf Rg. INV-\n2025-00299 40 Prozent'],
  ])('applies an advance on the named invoice %s', (_why, text) => {
    const result = run(tx('95.20', text))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount])).toEqual([['named', '95.2']])
    expect(codes(result)).toContain('advance_on_invoice')
  })

  it('does not take a longer number that begins with the named one', () => {
    const result = run(tx('95.20', 'ACOMPTE SUR FACTURE INV-2025-002991'))
    expect(result.allocations).toEqual([])
  })

  it('applies an advance of the whole open amount of the named invoice', () => {
    const result = run(tx('238.00', 'ACOMPTE SUR FACTURE INV-2025-00299'))
    expect(result.allocations.map((item) => [item.invoiceId, item.amount])).toEqual([['named', '238']])
  })

  it('lets an advance on a quote wait, even at the amount of the payer’s only such invoice', () => {
    const result = run(tx('238.00', 'ACOMPTE 30 % DEVIS D-2026-118'))
    expect(result.allocations).toEqual([])
    expect(result.exceptions[0]).toMatchObject({ type: 'unmatched_payment' })
  })
})
