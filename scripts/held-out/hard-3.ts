import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankLine, bankName, ccdAddenda, ustrd } from '../../test/support/bank-lines.js'
import { kit } from './kit.js'

const {
  add,
  applied,
  book,
  eu,
  from,
  hasAccount,
  iban,
  nameOf,
  p,
  person,
  postedAfter,
  sepaFields,
  sum,
  tx,
  unique,
  us,
  achDescription,
} = kit

/** The places the issue names: number words, labels, agents, advances, dates, returns, names, fields (3 of 3). */
export function hardCases3(): void {
  {
    const a = p.pick((i) => from('DE')(i) && new Decimal(i.amount).greaterThan(100))
    add({
      id: 'ho-test-transfer',
      title: 'A one-cent test transfer naming an invoice from a new account',
      why: 'SEPA Ustrd "TESTUEBERWEISUNG <n>" of 0.01 from an IBAN nobody knows, before the real payment',
      tags: ['sepa', 'amount', 'guard'],
      payment: tx('ho-test-transfer', a, '0.01', postedAfter(a), {
        ...sepaFields(a, `TESTUEBERWEISUNG ${a.number}`),
        counterpartyAccountMasked: 'DE75 5121 0800 1245 1261 99',
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => eu(i) && from('DE')(i))
    add({
      id: 'ho-currency-mismatch',
      title: 'A USD wire naming a EUR invoice with the same figure',
      why: 'Fedwire credit into the USD account, OBI "INVOICE <EUR invoice>", the EUR amount as USD',
      tags: ['wire', 'currency'],
      payment: bankLine('tx-ho-currency-mismatch', a.amount, 'USD', postedAfter(a), {
        description: `FEDWIRE CREDIT VIA: CITIBANK NA/021000089 B/O: ${bankName(nameOf(a))} OBI=INVOICE ${a.number}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: person('currency_mismatch', [a]),
    })
  }
  {
    add({
      id: 'ho-common-price-stranger',
      title: 'A common price from a private person, no reference',
      why: 'SEPA Ustrd "DANKE" of 119.00 from an unknown person: dozens of open invoices have that amount',
      tags: ['sepa', 'amount', 'guard'],
      payment: bankLine('tx-ho-common-price-stranger', '119.00', 'EUR', '2026-03-21', {
        paymentReference: 'DANKE',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'MAX MUSTERMANN',
        counterpartyAccountMasked: 'DE02 1203 0000 1009 9100 11',
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && p.invoicesOf(i.customerId ?? '').length >= 4)
    const b = p.pick((i) => i.customerId === a.customerId)
    add({
      id: 'ho-two-invoices-noref',
      title: 'Known account, no reference, the sum of two open invoices',
      why: 'camt.053 SEPA credit "SAMMELZAHLUNG" from the customer’s IBAN; two invoices add up to it',
      tags: ['sepa', 'payer', 'multi'],
      payment: tx('ho-two-invoices-noref', a, sum(a, b), '2026-03-30', { ...sepaFields(a, 'SAMMELZAHLUNG') }),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0001' && unique(i))
    add({
      id: 'ho-gesellschaft-not-gmbh',
      title: '"Gesellschaft für Logistik mbH" paying the amount of "Logistik GmbH"’s invoice',
      why: 'SEPA credit from a new IBAN, Dbtr/Nm "SCHNEIDER GESELLSCHAFT FUER LOGISTIK MBH" (a different company), no reference',
      tags: ['sepa', 'names', 'twins', 'guard'],
      payment: tx('ho-gesellschaft-not-gmbh', a, a.amount, postedAfter(a), {
        paymentReference: 'ZAHLUNG',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'SCHNEIDER GESELLSCHAFT FUER LOGISTIK MBH',
        counterpartyAccountMasked: 'DE27 1007 0000 0123 4567 89',
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0020' && unique(i))
    add({
      id: 'ho-joe-not-jo',
      title: '"JO\'S DINER" paying the amount of "Joe\'s Diner"’s invoice',
      why: 'ACH CCD from "JOS DINER LLC" (another customer, one letter shorter), no addenda',
      tags: ['ach', 'names', 'twins', 'guard'],
      payment: tx('ho-joe-not-jo', a, a.amount, postedAfter(a, 20), {
        description: `ORIG CO NAME:JOS DINER LLC ORIG ID:1833344410 CO ENTRY DESCR:PAYMENT SEC:CCD`,
        counterpartyName: 'JOS DINER LLC',
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => us(i) && hasAccount(i))
    add({
      id: 'ho-masked-tail-with-ref',
      title: 'A masked account and the invoice in the addenda',
      why: 'ACH CCD+ RMR*IV addenda, counterparty account XXXXXX1234: the number and amount carry it',
      tags: ['ach', 'masked', 'ordinary'],
      payment: tx('ho-masked-tail-with-ref', a, a.amount, postedAfter(a, 30), {
        paymentReference: ccdAddenda(a.number, a.amount),
        description: achDescription(a, 'PAYMENTS', p.random.digits(10), postedAfter(a, 30)),
        counterpartyName: bankName(nameOf(a), 16),
        counterpartyAccountMasked: `XXXXXX${iban(a).slice(-4)}`,
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i))
    add({
      id: 'ho-rechnung-nr-prefixed',
      title: '"Rechnung Nr." before the whole printed number',
      why: 'German SEPA Ustrd "Rechnung Nr. INV-2025-01555 Kundennummer 74641"',
      tags: ['sepa', 'number-word', 'ordinary'],
      payment: tx('ho-rechnung-nr-prefixed', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `Rechnung Nr. ${a.number} Kundennummer ${book.customerNumbers[a.customerId ?? '']}`),
        counterpartyAccountMasked: null,
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => us(i) && p.invoicesOf(i.customerId ?? '').length >= 3)
    const b = p.pick((i) => i.customerId === a.customerId)
    add({
      id: 'ho-inv-hash-two',
      title: '"INV# <a> & <b>" in a Fedwire OBI',
      why: 'Fedwire credit, OBI=INV# 100801 & 100802: an invoice word, two digits-only numbers, the sum',
      tags: ['wire', 'fedwire', 'multi', 'ordinary'],
      payment: tx('ho-inv-hash-two', a, sum(a, b), '2026-03-27', {
        description: `FEDWIRE CREDIT VIA: BANK OF AMERICA N.A./026009593 B/O: ${bankName(nameOf(a))} OBI=INV# ${a.number} & ${b.number} IMAD: 0327B1QGC03C00${p.random.digits(4)}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a, b]),
    })
  }
  {
    const a = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        !p.invoicesOf(i.customerId ?? '').some((o) => o.amount === '1700.00'),
    )
    const base = { ...a, issueDate: '2026-03-02', dueDate: '2026-04-01', paymentReference: null }
    const replaced: BookInvoice = {
      ...base,
      id: `${a.id}-v`,
      number: 'INV-2026-01299',
      amount: '1850.00',
      void: true,
    }
    const amended: BookInvoice = { ...base, id: `${a.id}-a`, number: 'INV-2026-01300', amount: '1700.00' }
    add({
      id: 'ho-amended-invoice',
      title: 'Pays the amended invoice’s amount quoting the voided original’s number',
      why: 'SEPA Ustrd "RECHNUNG <original number>": the original was voided and reissued corrected; the payer kept the old number',
      tags: ['sepa', 'void', 'interaction'],
      invoices: [replaced, amended],
      payment: tx('ho-amended-invoice', a, '1700.00', '2026-03-29', {
        ...sepaFields(a, 'RECHNUNG INV-2026-01299'),
      }),
      expect: person('suggested', [amended]),
    })
  }
  {
    const [x, y] = p
      .invoicesOf('cus_0013')
      .filter((i, _at, all) => all.filter((o) => o.amount === i.amount).length >= 2)
      .slice(0, 2)
      .map((i) => p.markUsed(i)) as [BookInvoice, BookInvoice]
    const second = tx('ho-batch-second', y, y.amount, '2026-03-26', {
      paymentReference: ustrd(y.number),
      description: 'BACS CREDIT',
      counterpartyName: bankName(nameOf(y), 18),
    })
    add({
      id: 'ho-batch-same-amount',
      title: 'Two BACS credits in one run, same customer and amount, each naming its invoice',
      why: 'UK BACS credits in one statement: each 18-character reference names one of two invoices with the same amount',
      tags: ['bacs', 'batch', 'interaction'],
      batch: [{ payment: second, expect: applied([y]) }],
      payment: tx('ho-batch-same-amount', x, x.amount, '2026-03-26', {
        paymentReference: ustrd(x.number),
        description: 'BACS CREDIT',
        counterpartyName: bankName(nameOf(x), 18),
      }),
      expect: applied([x]),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0018' && unique(i))
    const stranger = p.pick((i) => from('FI')(i) && i.amount !== a.amount)
    add({
      id: 'ho-commande-no-stranger',
      title: '"COMMANDE N°" with a number that is another customer’s invoice, payer known by name',
      why: 'French SEPA Ustrd "REGLEMENT COMMANDE N° <n>" (the payer’s order) from an account not on file',
      tags: ['sepa', 'number-word', 'fr', 'guard'],
      payment: tx('ho-commande-no-stranger', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `REGLEMENT COMMANDE N° ${stranger.number}`),
        counterpartyAccountMasked: 'FR76 3000 4008 2800 0123 4567 891',
      }),
      expect: person('suggested', [a]),
    })
  }
}
