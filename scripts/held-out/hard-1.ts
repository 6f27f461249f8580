import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankLine, bankName, mt940 } from '../../test/support/bank-lines.js'
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
  strangerWith,
} = kit

/** The places the issue names: number words, labels, agents, advances, dates, returns, names, fields (1 of 3). */
export function hardCases1(): void {
  {
    // The payer's own payment number is an invoice number of a stranger; its own invoice has the amount.
    const a = p.pick(
      (i) => us(i) && unique(i) && strangerWith(String(Number(i.number) + 37), i) !== undefined,
    )
    const stranger = strangerWith(String(Number(a.number) + 37), a) as BookInvoice
    add({
      id: 'ho-ach-pmt-no-collision',
      title: '"PMT NO." with the payer’s own payment number, which is another customer’s invoice number',
      why: 'ACH CCD, addenda "PMT NO. <n>": the payer’s remittance number, digits-only like our invoice numbers',
      tags: ['ach', 'number-word', 'collision', 'guard'],
      payment: tx('ho-ach-pmt-no-collision', a, a.amount, '2026-03-20', {
        paymentReference: `PMT NO. ${stranger.number}`,
        description: achDescription(a, 'PAYMENT', stranger.number, '2026-03-20'),
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    // A US customer's six-digit PO equals a stranger's invoice number.
    const entry = Object.entries(book.purchaseOrders).find(([id, po]) => {
      const own = p.byId.get(id) as BookInvoice
      const other = p.byNumber(po)
      return us(own) && unique(own) && other !== undefined && other.customerId !== own.customerId && us(other)
    }) as [string, string]
    const a = p.markUsed(p.byId.get(entry[0]) as BookInvoice)
    add({
      id: 'ho-re-po-collision',
      title: '"RE:" and the customer’s PO number, equal to another customer’s invoice number',
      why: 'ACH CCD addenda free text "RE: PO <n>"-style as AP systems write it ("RE: 100273"): RE is "regarding"',
      tags: ['ach', 'number-word', 'po', 'collision', 'guard'],
      payment: tx('ho-re-po-collision', a, a.amount, postedAfter(a, 30), {
        paymentReference: `RE: ${entry[1]}`,
        description: achDescription(a, 'AP PAYMENT', p.random.digits(10), postedAfter(a, 30)),
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => us(i))
    add({
      id: 'ho-ticket-hash',
      title: '"Ticket #<n>" from a stranger, the number an invoice’s',
      why: 'ACH PPD from an unknown company, addenda "SUPPORT TICKET #<n> REFUND": a ticket number, not an invoice',
      tags: ['ach', 'number-word', 'guard'],
      payment: bankLine('tx-ho-ticket-hash', '75.00', 'USD', '2026-03-18', {
        paymentReference: `SUPPORT TICKET #${a.number} REFUND`,
        description: `ORIG CO NAME:HELPDESKPRO INC ORIG ID:1800555012 CO ENTRY DESCR:REFUND SEC:PPD IND NAME:NORTHWIND COMMERCE`,
        counterpartyName: 'HELPDESKPRO INC',
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const stranger = p.pick((i) => from('FI')(i) && i.amount !== a.amount)
    add({
      id: 'ho-auftrags-nr-stranger',
      title: '"Auftrags-Nr." with a number that is another customer’s invoice, from a verified payer',
      why: 'MT940 :86: SVWZ+ "Auftrags-Nr. <n>" (the payer’s order number) from the customer’s IBAN; one own invoice has the amount',
      tags: ['mt940', 'number-word', 'label', 'guard'],
      payment: tx('ho-auftrags-nr-stranger', a, a.amount, postedAfter(a), {
        description: mt940({
          gvc: '166',
          postingText: 'SEPA-UEBERWEISUNG',
          eref: 'NOTPROVIDED',
          svwz: `Auftrags-Nr. ${stranger.number}`,
          bic: 'BYLADEMMXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    // Transposed last two digits land on a stranger's invoice; the payer is known by name only.
    const swap = (number: string) => `${number.slice(0, -2)}${number.at(-1)}${number.at(-2)}`
    const a = p.pick(
      (i) =>
        eu(i) &&
        !hasAccount(i) &&
        i.number.at(-1) !== i.number.at(-2) &&
        strangerWith(swap(i.number), i) !== undefined &&
        strangerWith(swap(i.number), i)?.amount !== i.amount,
    )
    add({
      id: 'ho-transposed-stranger',
      title: 'Transposed digits name a stranger’s invoice; the amount is the payer’s own',
      why: 'SEPA Ustrd "Rechnung <number with the last two digits swapped>", payer known by name only',
      tags: ['sepa', 'transposition', 'guard'],
      payment: tx('ho-transposed-stranger', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `Rechnung ${swap(a.number)}`),
        counterpartyAccountMasked: 'DE12 5001 0517 0648 4898 90',
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => eu(i) && !hasAccount(i) && unique(i) && from('DE')(i))
    const stranger = p.pick((i) => /^INV-2025-01\d{3}$/.test(i.number) && i.customerId !== a.customerId)
    add({
      id: 'ho-core-name-only',
      title: 'A bare number core from a payer known by name only, at another amount',
      why: 'SEPA Ustrd "Lieferschein 1503" (a delivery note number = the core of another customer’s invoice)',
      tags: ['sepa', 'core', 'guard'],
      payment: tx('ho-core-name-only', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `Lieferschein ${Number(stranger.number.slice(-5))}`),
        counterpartyAccountMasked: null,
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    // Two of one customer's invoices carry six-digit POs, one of them another customer's invoice number.
    const owner = Object.keys(book.customerNumbers).find((customerId) => {
      const withPo = p.invoicesOf(customerId).filter((i) => /^\d{6}$/.test(book.purchaseOrders[i.id] ?? ''))
      return withPo.length >= 2 && withPo.some((i) => strangerWith(book.purchaseOrders[i.id] ?? '', i))
    }) as string
    const [x1, x2] = p
      .invoicesOf(owner)
      .filter((i) => /^\d{6}$/.test(book.purchaseOrders[i.id] ?? ''))
      .map((i) => p.markUsed(i)) as [BookInvoice, BookInvoice]
    add({
      id: 'ho-po-list-collision',
      title: '"PO <n>, <m>": the label covers both numbers, one is another customer’s invoice number',
      why: 'SEPA/ACH remittance "PO 100412, 100518" as AP systems list orders: both are the payer’s purchase orders',
      tags: ['label', 'po', 'collision', 'guard'],
      payment: tx('ho-po-list-collision', x1, sum(x1, x2), '2026-03-28', {
        paymentReference: `PO ${book.purchaseOrders[x1.id]}, ${book.purchaseOrders[x2.id]}`,
        description: 'PAYMENT',
        counterpartyName: bankName(nameOf(x1)),
      }),
      expect: person('suggested', [x1, x2]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && p.invoicesOf(i.customerId ?? '').length >= 4)
    const [b, c] = p
      .invoicesOf(a.customerId ?? '')
      .filter((i) => i.id !== a.id)
      .slice(0, 2)
      .map((i) => p.markUsed(i)) as [BookInvoice, BookInvoice]
    const paid = new Decimal(sum(a, b, c)).minus('37.50').toFixed(2)
    add({
      id: 'ho-short-multi-no-fee',
      title: 'Three invoices named, 37.50 short, no fee or deduction stated',
      why: 'SEPA Ustrd listing three numbers (140 characters), the amount short of their sum without a word why',
      tags: ['sepa', 'multi', 'short', 'guard'],
      payment: tx('ho-short-multi-no-fee', a, paid, '2026-03-27', {
        ...sepaFields(
          a,
          `RE ${a.number} ${b.number} ${c.number} KD ${book.customerNumbers[a.customerId ?? '']}`,
        ),
      }),
      expect: person('suggested', [a, b, c]),
    })
  }
  {
    const a = p.pick((i) => from('NL')(i) && p.invoicesOf(i.customerId ?? '').length >= 3)
    const b = p.pick((i) => i.customerId === a.customerId)
    const paid = new Decimal(sum(a, b)).minus('4.00').toFixed(2)
    add({
      id: 'ho-short-multi-small',
      title: 'Two invoices named, 4.00 short, nothing stated',
      why: 'Dutch SEPA Ustrd "FACT <a> <b>", 4.00 under the sum (the payer’s bank charges, unstated)',
      tags: ['sepa', 'multi', 'short', 'guard'],
      payment: tx('ho-short-multi-small', a, paid, '2026-03-24', {
        ...sepaFields(a, `FACT ${a.number} ${b.number}`),
      }),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const a = p.pick((i) => us(i) && hasAccount(i) && unique(i))
    add({
      id: 'ho-masked-tail-only',
      title: 'Only the last four digits of the account, no name, no reference',
      why: 'US ACH credit as a bank API shows it: counterparty account XXXXXX1234, no originator name in the feed',
      tags: ['ach', 'payer', 'masked', 'guard'],
      payment: tx('ho-masked-tail-only', a, a.amount, postedAfter(a, 30), {
        description: 'ACH CREDIT',
        counterpartyAccountMasked: `XXXXXX${iban(a).slice(-4)}`,
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const other = p.customer('cus_0035')
    add({
      id: 'ho-account-name-contradicts',
      title: 'A customer’s IBAN with another company’s name on it',
      why: 'camt.053 SEPA credit: DbtrAcct is the customer’s known IBAN, Dbtr/Nm another customer’s name, Ustrd "ZAHLUNG"',
      tags: ['sepa', 'payer', 'guard'],
      payment: tx('ho-account-name-contradicts', a, a.amount, postedAfter(a), {
        ...sepaFields(a, 'ZAHLUNG'),
        counterpartyName: bankName(other.name),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const stripe = 'IE64 STRP 9900 0012 3456 78'
    const a = p.pick((i) => eu(i) && unique(i) && from('FR')(i))
    const customer = p.customer(a.customerId ?? '')
    add({
      id: 'ho-stripe-learned',
      title: 'A Stripe payout whose account a person once matched to one customer',
      why: 'SEPA credit from STRIPE PAYMENTS EUROPE LTD, Ustrd "STRIPE PAYOUT po_…": a lump of many card payments',
      tags: ['psp', 'intermediary', 'learned', 'guard'],
      customers: [{ ...customer, learnedAccounts: [stripe] }],
      payment: tx('ho-stripe-learned', a, a.amount, '2026-03-23', {
        paymentReference: 'STRIPE PAYOUT po_1OxK3sLkdIwHu7ixQ2mWZ4hb',
        description: 'SEPA CREDIT TRANSFER STRIPE',
        counterpartyName: 'STRIPE PAYMENTS EUROPE LTD',
        counterpartyAccountMasked: stripe,
      }),
      expect: person('unmatched'),
    })
  }
  {
    const treasury = 'DE44 5001 0517 5407 3249 31'
    const x = p.pick((i) => i.customerId === 'cus_0004' && unique(i))
    add({
      id: 'ho-treasury-two-customers',
      title: 'A group treasury account that pays for two customers, no reference',
      why: 'camt.053 SEPA credit from "MUELLER GRUPPE TREASURY" whose IBAN people matched to two group companies',
      tags: ['intermediary', 'learned', 'guard'],
      customers: [
        { ...p.customer('cus_0004'), learnedAccounts: [treasury] },
        { ...p.customer('cus_0006'), learnedAccounts: [treasury] },
      ],
      payment: tx('ho-treasury-two-customers', x, x.amount, postedAfter(x), {
        paymentReference: 'ZAHLUNG KONZERNGESELLSCHAFT',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'MUELLER GRUPPE TREASURY',
        counterpartyAccountMasked: treasury,
      }),
      expect: person('suggested', [x]),
    })
  }
}
