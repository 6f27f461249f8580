import { Decimal } from 'decimal.js'
import { bankName, mt940 } from '../../test/support/bank-lines.js'
import { kit } from './kit.js'

const {
  add,
  book,
  from,
  hasAccount,
  iban,
  nameOf,
  p,
  person,
  postedAfter,
  sepaFields,
  tx,
  unique,
  us,
  achDescription,
} = kit

/** The places the issue names: number words, labels, agents, advances, dates, returns, names, fields (2 of 3). */
export function hardCases2(): void {
  {
    const a = p.pick((i) => us(i) && new Decimal(i.amount).times('0.015').times(100).mod(1).isZero())
    const paid = new Decimal(a.amount).times('0.985').toFixed(2)
    add({
      id: 'ho-factor-early-pay',
      title: 'A supply-chain-finance provider pays early, 1.5 % deducted',
      why: 'ACH CCD from TAULIA INC "EARLY PAYMENT INV <n> DISC 1.50%": a program discount the invoice does not grant',
      tags: ['ach', 'intermediary', 'short', 'guard'],
      payment: tx('ho-factor-early-pay', a, paid, postedAfter(a, 5), {
        paymentReference: `EARLY PAYMENT INV ${a.number} DISC 1.50%`,
        description: 'ORIG CO NAME:TAULIA INC CO ENTRY DESCR:EARLYPAY SEC:CCD',
        counterpartyName: 'TAULIA INC',
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    add({
      id: 'ho-anzahlung',
      title: 'Anzahlung from the customer’s account at the amount of its only such invoice',
      why: 'MT940 :86: SVWZ+ "ANZAHLUNG LT. AUFTRAGSBESTAETIGUNG AB-2026-0457": a down payment on a new order',
      tags: ['mt940', 'advance', 'guard'],
      payment: tx('ho-anzahlung', a, a.amount, '2026-03-26', {
        description: mt940({
          gvc: '166',
          postingText: 'SEPA-UEBERWEISUNG',
          svwz: 'ANZAHLUNG LT. AUFTRAGSBESTAETIGUNG AB-2026-0457',
          bic: 'HYVEDEMMXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0019' && unique(i))
    add({
      id: 'ho-acompte',
      title: 'Acompte on a quote, at the amount of an open invoice',
      why: 'French camt.053 VIREMENT SEPA RECU, Ustrd "ACOMPTE 30 % DEVIS D-2026-118"',
      tags: ['sepa', 'advance', 'fr', 'guard'],
      payment: tx('ho-acompte', a, a.amount, '2026-03-25', {
        ...sepaFields(a, 'ACOMPTE 30 % DEVIS D-2026-118'),
        description: 'VIREMENT SEPA RECU',
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => us(i) && unique(i))
    add({
      id: 'ho-deposit-us',
      title: 'A deposit for a new order by ACH',
      why: 'ACH CCD addenda "DEPOSIT FOR ORDER 55120"',
      tags: ['ach', 'advance', 'guard'],
      payment: tx('ho-deposit-us', a, a.amount, '2026-03-26', {
        paymentReference: 'DEPOSIT FOR ORDER 55120',
        description: achDescription(a, 'DEPOSIT', p.random.digits(10), '2026-03-26'),
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    add({
      id: 'ho-future-number',
      title: 'Pays an invoice number not issued yet (the 2025 invoice with that core is another customer’s)',
      why: 'SEPA Ustrd "VORAUSKASSE RECHNUNG INV-2026-01870": prepayment against a pro-forma; INV-2026-01870 does not exist yet',
      tags: ['sepa', 'advance', 'future', 'guard'],
      payment: tx('ho-future-number', a, a.amount, '2026-03-30', {
        ...sepaFields(a, 'VORAUSKASSE RECHNUNG INV-2026-01870'),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && (i.issueDate ?? '') >= '2026-03-10')
    add({
      id: 'ho-issued-after-payment',
      title: 'The named invoice was issued three weeks after the payment',
      why: 'SEPA Ustrd naming an invoice number the customer had from a pro-forma; the invoice is dated after the booking',
      tags: ['sepa', 'dates', 'guard'],
      payment: tx('ho-issued-after-payment', a, a.amount, '2026-02-17', {
        ...sepaFields(a, `PROFORMA ${a.number}`),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && (i.issueDate ?? '') < '2025-09-20')
    const inflow = tx('ho-old-inflow-prior', a, a.amount, '2025-09-25', {
      ...sepaFields(a, `RECHNUNG ${a.number}`),
    })
    add({
      id: 'ho-old-inflow-refund',
      title: 'A refund half a year after the inflow, same amount, same account',
      why: 'camt.053 SEPA debit to the customer, Ustrd "ERSTATTUNG GUTHABEN KD <n>": paying out a credit balance',
      tags: ['return', 'dates', 'guard'],
      prior: [inflow],
      payment: tx('ho-old-inflow-refund', a, `-${a.amount}`, '2026-03-27', {
        ...sepaFields(a, `ERSTATTUNG GUTHABEN KD ${book.customerNumbers[a.customerId ?? '']}`),
        description: 'SEPA-UEBERWEISUNG',
      }),
      expect: person('none'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && (i.issueDate ?? '') > '2026-02-01')
    const collected = tx('ho-dd-fee-collection', a, a.amount, '2026-03-16', {
      paymentReference: `${a.number}`,
      customerReference: `NWC-DD-${p.random.digits(8)}`,
      description: 'SEPA-LASTSCHRIFT EINZUG',
      counterpartyName: bankName(nameOf(a)),
      counterpartyAccountMasked: iban(a),
    })
    add({
      id: 'ho-return-with-fee',
      title: 'A direct-debit return debited together with the bank’s fee',
      why: 'MT940 :86: 109 RUECKLASTSCHRIFT AC04 with "ENTGELT 3,00": the collected amount plus a 3.00 return fee in one debit',
      tags: ['mt940', 'return', 'fee'],
      prior: [collected],
      payment: tx('ho-return-with-fee', a, `-${new Decimal(a.amount).plus(3).toFixed(2)}`, '2026-03-20', {
        description: mt940({
          gvc: '109',
          postingText: 'RUECKLASTSCHRIFT',
          eref: collected.customerReference ?? '',
          svwz: `AC04 KONTO ERLOSCHEN ${a.number} ENTGELT 3,00 EUR`,
          bic: 'COBADEFFXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: collected.id } },
    })
  }
  {
    const a = p.pick((i) => from('FI')(i) && hasAccount(i))
    const inflow = tx('ho-supplier-prior', a, a.amount, postedAfter(a, 10), {
      ...sepaFields(a, `LASKU ${a.number}`),
    })
    add({
      id: 'ho-supplier-payment',
      title: 'A supplier payment whose invoice number is ours too',
      why: 'Finnish SEPA debit to a supplier (not the customer), Ustrd "LASKU <n>" = the supplier’s invoice number, same amount',
      tags: ['return', 'supplier', 'guard'],
      prior: [inflow],
      payment: tx('ho-supplier-payment', a, `-${a.amount}`, '2026-03-29', {
        paymentReference: `LASKU ${a.number}`,
        description: 'SEPA-TILISIIRTO',
        counterpartyName: 'OFFICE PARTNER OY',
        counterpartyAccountMasked: 'FI21 1234 5600 0007 85',
      }),
      expect: person('none'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && new Decimal(i.amount).greaterThan(500))
    const inflow = tx('ho-returned-goods-prior', a, a.amount, postedAfter(a, 12), {
      ...sepaFields(a, `RECHNUNG ${a.number}`),
    })
    const refund = new Decimal(a.amount).times('0.3').toFixed(2)
    add({
      id: 'ho-refund-returned-goods',
      title: 'A refund for goods sent back, naming the paid invoice',
      why: 'SEPA debit to the customer, Ustrd "GUTSCHRIFT WARENRUECKSENDUNG ZU RE <n>": a credit for returned goods',
      tags: ['return', 'refund', 'guard'],
      prior: [inflow],
      payment: tx('ho-refund-returned-goods', a, `-${refund}`, '2026-03-30', {
        ...sepaFields(a, `GUTSCHRIFT WARENRUECKSENDUNG ZU RE ${a.number}`),
        description: 'SEPA-UEBERWEISUNG',
      }),
      expect: person('none'),
    })
  }
  {
    const a = p.pick((i) => from('GB')(i))
    const ddi = `NWCDD${p.random.digits(6)}`
    const collected = tx('ho-arudd-collection', a, a.amount, '2026-03-10', {
      paymentReference: a.number,
      customerReference: ddi,
      description: 'BACS DIRECT DEBIT COLLECTION',
      counterpartyName: bankName(nameOf(a), 18),
    })
    add({
      id: 'ho-bacs-arudd',
      title: 'BACS ARUDD unpaid direct debit quoting only the DDI reference',
      why: 'UK BACS ARUDD (automated return of unpaid direct debits), reason 0 REFER TO PAYER, reference = the DDI only',
      tags: ['bacs', 'return', 'dd'],
      prior: [collected],
      payment: tx('ho-bacs-arudd', a, `-${a.amount}`, '2026-03-13', {
        paymentReference: ddi,
        description: 'BACS ARUDD UNPAID DIRECT DEBIT RETURN CODE 0 REFER TO PAYER',
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: collected.id } },
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && (i.issueDate ?? '') > '2026-02-01')
    const e2e = `NWC-DD-${p.random.digits(4)}F2K${p.random.digits(3)}`
    const mandate = `MNDT-${book.customerNumbers[a.customerId ?? '']}-01`
    const collected = tx('ho-dd-e2e-collection', a, a.amount, '2026-03-12', {
      paymentReference: a.number,
      customerReference: e2e,
      description: `SEPA-LASTSCHRIFT EINZUG MREF ${mandate}`,
      counterpartyName: bankName(nameOf(a)),
      counterpartyAccountMasked: iban(a),
    })
    add({
      id: 'ho-sepa-dd-return-e2e',
      title: 'SEPA direct-debit return quoting only the end-to-end id and mandate',
      why: 'MT940 :86: 109 RUECKLASTSCHRIFT with ?20 EREF+<end-to-end id> ?21 MREF+<mandate> and SVWZ+ MD06, no invoice number',
      tags: ['mt940', 'return', 'dd'],
      prior: [collected],
      payment: tx('ho-sepa-dd-return-e2e', a, `-${a.amount}`, '2026-03-19', {
        description: mt940({
          gvc: '109',
          postingText: 'RUECKLASTSCHRIFT',
          eref: e2e,
          mref: mandate,
          svwz: 'MD06 RUECKGABE AUF WUNSCH DES ZAHLERS',
          bic: 'COBADEFFXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyAccountMasked: iban(a),
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: collected.id } },
    })
  }
  {
    const a = p.pick((i) => from('AT')(i) && hasAccount(i))
    const first = tx('ho-duplicate-first', a, a.amount, '2026-03-23', {
      ...sepaFields(a, `RECHNUNG ${a.number}`),
    })
    add({
      id: 'ho-duplicate-payment',
      title: 'The same payment twice: the second finds the invoice paid',
      why: 'camt.053: two SEPA credits one day apart with the same Ustrd and amount (the payer’s AP ran the batch twice)',
      tags: ['sepa', 'duplicate', 'interaction', 'guard'],
      prior: [first],
      payment: tx('ho-duplicate-payment', a, a.amount, '2026-03-24', {
        ...sepaFields(a, `RECHNUNG ${a.number}`),
      }),
      expect: person('unmatched', [a]),
    })
  }
}
