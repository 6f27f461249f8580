import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { matchPayments } from './match-payments.js'
import { tx } from '../../test/support/match-case-table.js'
import type { MatchInvoice, MatchTransaction } from './types.js'

const invoices: MatchInvoice[] = [
  { id: 'a', number: 'INV-1001', amount: '250.00', currency: 'EUR', customerName: 'Acme Ltd' },
]
const paid = tx('in', '250.00', {
  paymentReference: 'INV-1001',
  counterpartyName: 'ACME LTD',
  description: 'SEPA-BASISLASTSCHRIFT EREF+ACME-DD-0301 MREF+ACME-MANDAT-0007',
})
const outcome = (outflow: MatchTransaction, config = matchConfig()) => {
  const result = matchPayments({ invoices, transactions: [paid, outflow], config })
  return {
    returned: result.returns.filter((item) => !item.partial).map((item) => item.inflowTransactionId),
    exceptions: result.exceptions.map((item) => item.type),
    codes: result.exceptions.flatMap((item) => item.evidence.map((evidence) => evidence.code)),
  }
}

describe('returns are returns (issue 25 rule 8)', () => {
  it('reads the inflow plus the fee the text states as the return plus a fee', () => {
    const found = outcome(
      tx('out', '-253.00', {
        postedDate: '2024-03-05',
        description: 'RUECKLASTSCHRIFT AM04 ENTGELT 3,00',
        counterpartyName: 'ACME LTD',
      }),
    )
    expect(found.returned).toEqual(['in'])
    expect(found.codes).toContain('return_fee')
  })

  it('takes no outflow naming the invoice without a return code or wording for a return', () => {
    expect(
      outcome(
        tx('out', '-250.00', { description: 'Zahlung Rechnung INV-1001', counterpartyName: 'SUPPLIER GMBH' }),
      ).returned,
    ).toEqual([])
    expect(
      outcome(
        tx('out', '-250.00', {
          description: 'Refund for returned goods INV-1001',
          counterpartyName: 'ACME LTD',
        }),
      ).returned,
    ).toEqual([])
  })

  it('takes no refund for goods sent back, in the languages of the wording, as a return', () => {
    for (const description of [
      'REMBOURSEMENT RETOUR MARCHANDISE FACT INV-1001',
      'RIMBORSO RESO MERCE FATTURA INV-1001',
      'DEVOLUCION DE MERCANCIAS FACTURA INV-1001',
    ]) {
      expect(outcome(tx('out', '-250.00', { description, counterpartyName: 'ACME LTD' })).returned).toEqual(
        [],
      )
    }
    // Without goods sent back the refund word still reads as the payment coming back.
    expect(
      outcome(tx('out', '-250.00', { description: 'REMBOURSEMENT INV-1001', counterpartyName: 'ACME LTD' }))
        .returned,
    ).toEqual(['in'])
  })

  it('recognises a return quoting only the mandate reference, and a BACS unpaid direct debit', () => {
    expect(
      outcome(tx('out', '-250.00', { description: 'RUECKLASTSCHRIFT AC04 MREF+ACME-MANDAT-0007' })).returned,
    ).toEqual(['in'])
    expect(outcome(tx('out', '-250.00', { description: 'UNPAID DD ARUDD 0 ACME-DD-0301' })).returned).toEqual(
      ['in'],
    )
  })

  it('never returns an inflow older than the horizon by itself: a person is asked', () => {
    const late = tx('out', '-250.00', {
      postedDate: '2024-08-01',
      description: 'RETURN AM04',
      counterpartyName: 'ACME LTD',
    })
    const held = outcome(late)
    expect(held.returned).toEqual([])
    expect(held.exceptions).toContain('ambiguous_reference')
    expect(held.codes).toContain('return_beyond_horizon')
    expect(outcome(late, matchConfig({ returnHorizonDays: 180 })).returned).toEqual(['in'])
  })
})
