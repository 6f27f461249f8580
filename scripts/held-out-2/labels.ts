import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankName, mt940 } from '../../test/support/bank-lines.js'
import { kit } from './kit.js'

const {
  add,
  after,
  applied,
  book,
  eu,
  from,
  hasAccount,
  iban,
  nameOf,
  othersOf,
  ownAt,
  p,
  person,
  sepaFields,
  tx,
  unique,
  us,
} = kit

const SEPA = 'SEPA credit transfer, camt.053 RmtInf/Ustrd (140 characters)'

function mt940Line(id: string, a: BookInvoice, amount: string, date: string, svwz: string) {
  return tx(id, a, amount, date, {
    description: mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: 'NOTPROVIDED',
      svwz,
      bic: 'COLSDE33XXX',
      iban: iban(a),
      name: nameOf(a),
    }),
    counterpartyName: bankName(nameOf(a)),
    counterpartyAccountMasked: iban(a),
  })
}

function ach(id: string, a: BookInvoice, amount: string, date: string, addenda: string, entry = 'PAYMENTS') {
  return tx(id, a, amount, date, {
    paymentReference: addenda,
    description: `ORIG CO NAME:${bankName(nameOf(a), 16)} ORIG ID:1${p.random.digits(9)} DESC DATE:${date.slice(2).replace(/-/g, '')} CO ENTRY DESCR:${entry} SEC:CCD TRACE#:0210000${p.random.digits(8)} EED:${date.slice(2).replace(/-/g, '')} IND NAME:NORTHWIND COMMERCE`,
    counterpartyName: bankName(nameOf(a)),
    counterpartyAccountMasked: iban(a),
  })
}

/** A stranger's EUR invoice of the INV- series, of another amount than `a`. */
const strangerOf = (a: BookInvoice) =>
  p.pick((i) => eu(i) && i.customerId !== a.customerId && i.amount !== a.amount && /^INV-/.test(i.number))

/** Labelled numbers (rule 14) and the traps around them. */
export function labelCases(): void {
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const s = strangerOf(a)
    add({
      id: 'h2-mt940-auftrags-nr-stranger',
      title:
        '"Auftrags-Nr." naming another customer’s invoice, from the customer’s IBAN; its one invoice at the amount',
      why: 'German MT940 :86: 166, ?21 "SVWZ+Auftrags-Nr. <n>" (the payer’s order number, by chance another customer’s invoice number), ?31 IBAN on file',
      tags: ['mt940', 'label', 'labelled-numbers', 'ordinary'],
      payment: mt940Line(
        'h2-mt940-auftrags-nr-stranger',
        a,
        a.amount,
        after([a]),
        `Auftrags-Nr. ${s.number} Lieferung KW 7`,
      ),
      expect: applied([a]),
    })
  }
  {
    const w = p.pick((i) => us(i) && hasAccount(i) && unique(i) && othersOf(i).length >= 1)
    add({
      id: 'h2-ach-po-own-exact',
      title: '"PO <n>" where n is the payer’s own open invoice number and the amount is that invoice’s',
      why: 'ACH CCD+ addenda "PO 100xxx" from the customer’s account: the number is labelled as an order, but it is the payer’s own invoice and the amount is exactly its open amount',
      tags: ['ach', 'ccd', 'label', 'po', 'trap'],
      payment: ach('h2-ach-po-own-exact', w, w.amount, after([w]), `PO ${w.number}\\`),
      expect: applied([w]),
    })
  }
  {
    const w = p.pick(
      (i) =>
        us(i) &&
        hasAccount(i) &&
        new Decimal(i.amount).greaterThan(500) &&
        ownAt(i, new Decimal(i.amount).minus('13.37').toFixed(2)) === undefined,
    )
    const amount = new Decimal(w.amount).minus('13.37').toFixed(2)
    add({
      id: 'h2-ach-po-own-other-amount',
      title: '"PO <n>" = the payer’s own invoice number, at an amount that is no part of it',
      why: 'ACH CCD+ addenda "PO#<n>" from the customer’s account; the amount is 13.37 short of that invoice and fits nothing else',
      tags: ['ach', 'ccd', 'label', 'po', 'trap'],
      payment: ach('h2-ach-po-own-other-amount', w, amount, after([w]), `PO#${w.number}\\`),
      expect: person('suggested', [w]),
    })
  }
  {
    const w = p.pick(
      (i) =>
        us(i) && hasAccount(i) && othersOf(i).some((o) => o.amount !== i.amount && ownAt(o, o.amount) === o),
    )
    const z = p.markUsed(
      othersOf(w).find((o) => o.amount !== w.amount && ownAt(o, o.amount) === o) as BookInvoice,
    )
    add({
      id: 'h2-ach-po-own-amount-elsewhere',
      title: '"PO <n>" = one of the payer’s own invoice numbers, the amount exactly another of its invoices',
      why: `ACH CCD+ addenda "PURCHASE ORDER ${w.number}" from the customer’s account; the amount is exactly ${z.number}: which invoice is meant is for a person`,
      tags: ['ach', 'ccd', 'label', 'po', 'trap'],
      payment: ach(
        'h2-ach-po-own-amount-elsewhere',
        w,
        z.amount,
        after([w, z]),
        `PURCHASE ORDER ${w.number}\\`,
      ),
      expect: person('suggested', [z]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i))
    const s = strangerOf(a)
    add({
      id: 'h2-sepa-vertrags-nr-and-invoice',
      title: '"Vertrags-Nr." with another customer’s invoice number, and the real invoice number beside it',
      why: `${SEPA} from the customer’s IBAN: "VERTRAGS-NR. <stranger’s number> RECHNUNG <own number>" for exactly the own invoice`,
      tags: ['sepa', 'label', 'labelled-numbers'],
      payment: tx('h2-sepa-vertrags-nr-and-invoice', a, a.amount, after([a]), {
        ...sepaFields(a, `VERTRAGS-NR. ${s.number} RECHNUNG ${a.number} WARTUNG Q1`),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        othersOf(i).some((o) => o.amount !== i.amount && ownAt(o, o.amount) === o),
    )
    const y = p.markUsed(
      othersOf(a).find((o) => o.amount !== a.amount && ownAt(o, o.amount) === o) as BookInvoice,
    )
    const s = strangerOf(a)
    add({
      id: 'h2-sepa-vertrags-nr-invoice-other-amount',
      title: '"Vertrags-Nr." plus an own invoice number, at the amount of another own invoice',
      why: `${SEPA} from the customer’s IBAN: "VERTRAGS-NR. ${s.number} RECHNUNG ${a.number}" for exactly ${y.number}’s amount`,
      tags: ['sepa', 'label', 'labelled-numbers', 'amount-elsewhere', 'trap'],
      payment: tx('h2-sepa-vertrags-nr-invoice-other-amount', a, y.amount, after([a, y]), {
        ...sepaFields(a, `VERTRAGS-NR. ${s.number} RECHNUNG ${a.number}`),
      }),
      expect: person('suggested', [y]),
    })
  }
  {
    // cus_0001 and cus_0003 are both "Schneider Logistik GmbH" (Germany, Austria): one group.
    const sister = p.pick((i) => i.customerId === 'cus_0001' && /^INV-/.test(i.number))
    const payer = p.pick((i) => i.customerId === 'cus_0003')
    add({
      id: 'h2-mt940-auftrags-nr-group-company',
      title: '"Auftrags-Nr." naming the invoice of the payer’s sister company, at that invoice’s amount',
      why: 'MT940 :86: from the Austrian Schneider Logistik GmbH’s IBAN on file, ?21 "SVWZ+Auftrags-Nr. <n>" where n is the German Schneider Logistik GmbH’s invoice and the amount is exactly it',
      tags: ['mt940', 'label', 'group', 'trap'],
      payment: mt940Line(
        'h2-mt940-auftrags-nr-group-company',
        payer,
        sister.amount,
        after([sister, payer]),
        `Auftrags-Nr. ${sister.number}`,
      ),
      expect: person('suggested', [sister]),
    })
  }
  {
    const a = p.pick(
      (i) =>
        from('DE')(i) &&
        !hasAccount(i) &&
        unique(i) &&
        book.customers.filter((c) => c.name === nameOf(i)).length === 1,
    )
    const s = strangerOf(a)
    add({
      id: 'h2-sepa-auftrags-nr-name-only',
      title: '"Auftrags-Nr." naming another customer’s invoice, from a payer known by name only',
      why: `${SEPA} "AUFTRAGS-NR. ${s.number}" from an IBAN not on file, the name the customer’s; its one open invoice has the amount`,
      tags: ['sepa', 'label', 'labelled-numbers', 'name-only', 'trap'],
      payment: tx('h2-sepa-auftrags-nr-name-only', a, a.amount, after([a]), {
        ...sepaFields(a, `AUFTRAGS-NR. ${s.number}`),
        counterpartyAccountMasked: 'DE44 5001 0517 5407 3249 31',
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => us(i) && hasAccount(i) && unique(i))
    const [s1, s2] = [1, 2].map(() =>
      p.pick((i) => us(i) && i.customerId !== a.customerId && i.amount !== a.amount),
    ) as [BookInvoice, BookInvoice]
    add({
      id: 'h2-ach-po-list-strangers',
      title: '"PO# n1, n2": a list of order numbers that are two other customers’ invoices',
      why: 'ACH CCD+ addenda "PO# <n1>, <n2>" from the customer’s account: both six-digit order numbers equal other customers’ invoice numbers',
      tags: ['ach', 'ccd', 'label', 'po', 'labelled-numbers'],
      payment: ach('h2-ach-po-list-strangers', a, a.amount, after([a]), `PO# ${s1.number}, ${s2.number}\\`),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const s = p.pick((i) => eu(i) && i.customerId !== a.customerId && /^INV-2025-/.test(i.number))
    const ls = s.number.replace(/^INV-/, 'LS-')
    add({
      id: 'h2-sepa-lieferschein-prefix',
      title: 'A delivery note number whose core is another customer’s invoice',
      why: `${SEPA} from the customer’s IBAN: "LIEFERSCHEIN ${ls}" (another document’s prefix), its one open invoice at the amount`,
      tags: ['sepa', 'other-prefix', 'labelled-numbers'],
      payment: tx('h2-sepa-lieferschein-prefix', a, a.amount, after([a]), {
        ...sepaFields(a, `LIEFERSCHEIN ${ls} VOM 12.02.2026`),
      }),
      expect: applied([a]),
    })
  }
  {
    const s = p.pick((i) => from('DE')(i) && /^INV-/.test(i.number))
    const a = p.pick(
      (i) =>
        from('DE')(i) && hasAccount(i) && i.customerId !== s.customerId && ownAt(i, s.amount) === undefined,
    )
    add({
      id: 'h2-mt940-auftrags-nr-stranger-exact',
      title: '"Auftrags-Nr." naming another customer’s invoice at exactly its amount',
      why: 'MT940 :86: ?21 "SVWZ+Auftrags-Nr. <n>" from a customer’s IBAN on file; n and the amount both fit another customer’s invoice, none of the payer’s',
      tags: ['mt940', 'label', 'third-party', 'trap'],
      payment: mt940Line(
        'h2-mt940-auftrags-nr-stranger-exact',
        a,
        s.amount,
        after([s, a]),
        `Auftrags-Nr. ${s.number}`,
      ),
      expect: person('suggested', [s]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && p.sameAmountOfCustomer(i) === 2)
    const twin = p.markUsed(othersOf(a).find((o) => o.amount === a.amount) as BookInvoice)
    const older = (a.issueDate ?? '') <= (twin.issueDate ?? '') ? a : twin
    const s = strangerOf(a)
    add({
      id: 'h2-sepa-auftrags-nr-two-own',
      title: '"Auftrags-Nr." of another customer’s invoice; the payer has two open invoices at the amount',
      why: `${SEPA} from the customer’s IBAN: "AUFTRAGS-NR. ${s.number}"; two of its invoices have exactly the amount`,
      tags: ['sepa', 'label', 'labelled-numbers', 'trap'],
      payment: tx('h2-sepa-auftrags-nr-two-own', a, a.amount, after([a, twin]), {
        ...sepaFields(a, `AUFTRAGS-NR. ${s.number}`),
      }),
      expect: person('suggested', [older]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const s = strangerOf(a)
    add({
      id: 'h2-mt940-anzahlung-auftrags-nr',
      title:
        '"Anzahlung Auftrags-Nr." with another customer’s invoice number; the payer has an invoice at the amount',
      why: 'MT940 :86: ?21 "SVWZ+Anzahlung Auftrags-Nr. <n>" from the customer’s IBAN: a down payment on an order, not any invoice',
      tags: ['mt940', 'label', 'advance', 'trap'],
      payment: mt940Line(
        'h2-mt940-anzahlung-auftrags-nr',
        a,
        a.amount,
        after([a]),
        `Anzahlung Auftrags-Nr. ${s.number}`,
      ),
      expect: person('unmatched'),
    })
  }
}
