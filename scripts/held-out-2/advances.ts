import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankName, mt940 } from '../../test/support/bank-lines.js'
import { cents, part } from '../../test/support/case-kit.js'
import { kit } from './kit.js'

const {
  add,
  after,
  applied,
  eu,
  from,
  hasAccount,
  iban,
  nameOf,
  ownAt,
  p,
  person,
  sepaFields,
  tx,
  unique,
  us,
} = kit

const SEPA = 'SEPA credit transfer, camt.053 RmtInf/Ustrd (140 characters)'
const pct = (amount: string, percent: number) => new Decimal(amount).times(percent).div(100).toFixed(2)
const roundPct = (percent: number) => (i: BookInvoice) =>
  new Decimal(i.amount).times(percent).div(100).decimalPlaces() <= 2

/** Rule 6's advance on a named invoice, and the advances that must wait. */
export function advanceCases(): void {
  {
    const x = p.pick((i) => from('FR')(i) && hasAccount(i) && unique(i) && roundPct(30)(i))
    add({
      id: 'h2-camt-acompte-sur-facture',
      title: '"ACOMPTE 30 % SUR FACTURE <number>" from the customer’s IBAN',
      why: 'camt.053 AddtlNtryInf "VIR SEPA RECU /MOTIF ACOMPTE 30 % SUR FACTURE …": an advance on an issued invoice, 30 % of it',
      tags: ['camt053', 'fr', 'advance-on-invoice', 'ordinary'],
      payment: tx('h2-camt-acompte-sur-facture', x, pct(x.amount, 30), after([x]), {
        paymentReference: `ACOMPTE 30 % SUR FACTURE ${x.number}`,
        description: `VIR SEPA RECU /DE ${bankName(nameOf(x), 35)} /MOTIF ACOMPTE 30 % SUR FACTURE ${x.number}`,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: pct(x.amount, 30) }),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i))
    const s = p.pick(
      (i) => eu(i) && i.customerId !== a.customerId && roundPct(50)(i) && /^INV-/.test(i.number),
    )
    add({
      id: 'h2-sepa-anzahlung-auf-rechnung-stranger',
      title: '"Anzahlung auf Rechnung" naming another customer’s invoice, from a verified payer',
      why: `${SEPA} from ${bankName(nameOf(a), 30)}’s IBAN on file: "ANZAHLUNG AUF RECHNUNG ${s.number}", an invoice of another customer`,
      tags: ['sepa', 'advance-on-invoice', 'third-party', 'trap'],
      payment: tx('h2-sepa-anzahlung-auf-rechnung-stranger', a, pct(s.amount, 50), after([a, s]), {
        ...sepaFields(a, `ANZAHLUNG AUF RECHNUNG ${s.number}`),
      }),
      expect: person('suggested', [s]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    add({
      id: 'h2-sepa-anzahlung-rechnung-folgt',
      title: '"Anzahlung, Rechnung folgt" at the amount of the customer’s one open invoice of that amount',
      why: `${SEPA} from the customer’s IBAN: "ANZAHLUNG PROJEKT LAGERHALLE RECHNUNG FOLGT": the invoice does not exist yet`,
      tags: ['sepa', 'advance', 'trap'],
      payment: tx('h2-sepa-anzahlung-rechnung-folgt', a, a.amount, after([a]), {
        ...sepaFields(a, 'ANZAHLUNG PROJEKT LAGERHALLE RECHNUNG FOLGT'),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const x = p.pick(
      (i) =>
        from('DE')(i) &&
        unique(i) &&
        roundPct(50)(i) &&
        p.book.customers.filter((c) => c.name === nameOf(i)).length === 1,
    )
    add({
      id: 'h2-sepa-anzahlung-auf-rechnung-new-account',
      title: '"Anzahlung auf Rechnung" from an account not on file',
      why: `${SEPA} "ANZAHLUNG AUF RECHNUNG ${x.number}" for half of it, from an IBAN bankrec has not seen (the name is the customer’s)`,
      tags: ['sepa', 'advance-on-invoice', 'unverified', 'trap'],
      payment: tx('h2-sepa-anzahlung-auf-rechnung-new-account', x, pct(x.amount, 50), after([x]), {
        ...sepaFields(x, `ANZAHLUNG AUF RECHNUNG ${x.number}`),
        counterpartyAccountMasked: 'DE63 3702 0500 0009 7097 00',
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const future = p.unissued('INV-2026-0', 40)
    add({
      id: 'h2-sepa-anzahlung-auf-rechnung-unissued',
      title: '"Anzahlung auf Rechnung" with a number we have not issued yet',
      why: `${SEPA} from the customer’s IBAN: "ANZAHLUNG AUF RECHNUNG ${future}" (the series’ next numbers), at the amount of its one open invoice`,
      tags: ['sepa', 'advance-on-invoice', 'future-number', 'trap'],
      payment: tx('h2-sepa-anzahlung-auf-rechnung-unissued', a, a.amount, after([a]), {
        ...sepaFields(a, `ANZAHLUNG AUF RECHNUNG ${future}`),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const x = p.pick((i) => from('FR')(i) && hasAccount(i) && unique(i))
    const over = new Decimal(x.amount).times('1.2').toFixed(2)
    add({
      id: 'h2-camt-acompte-over',
      title: '"ACOMPTE SUR FACTURE" for more than the invoice',
      why: 'camt.053 AddtlNtryInf "/MOTIF ACOMPTE SUR FACTURE <number>" from the customer’s IBAN, 120 % of the invoice: an advance is less than the invoice',
      tags: ['camt053', 'fr', 'advance-on-invoice', 'trap'],
      payment: tx('h2-camt-acompte-over', x, over, after([x]), {
        paymentReference: `ACOMPTE SUR FACTURE ${x.number}`,
        description: `VIR SEPA RECU /DE ${bankName(nameOf(x), 35)} /MOTIF ACOMPTE SUR FACTURE ${x.number}`,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const x = p.pick(
      (i) =>
        from('DE')(i) && hasAccount(i) && unique(i) && roundPct(20)(i) && (i.issueDate ?? '') < '2026-02-01',
    )
    const paid = tx('h2-sepa-anzahlung-paid-invoice-prior', x, x.amount, after([x], 10), {
      ...sepaFields(x, `RECHNUNG ${x.number}`),
    })
    add({
      id: 'h2-sepa-anzahlung-paid-invoice',
      title: '"Anzahlung auf Rechnung" naming an invoice the customer paid in full earlier in the run',
      why: `${SEPA} from the customer’s IBAN: "ANZAHLUNG AUF RECHNUNG ${x.number}" for 20 % after a full payment of it: no advance on it can be owed`,
      tags: ['sepa', 'advance-on-invoice', 'paid', 'trap'],
      prior: [paid],
      payment: tx('h2-sepa-anzahlung-paid-invoice', x, pct(x.amount, 20), after([x], 40), {
        ...sepaFields(x, `ANZAHLUNG AUF RECHNUNG ${x.number}`),
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const x = p.pick(
      (i) => from('DE')(i) && hasAccount(i) && unique(i) && roundPct(40)(i) && /^INV-2026-0/.test(i.number),
    )
    const text = mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: 'NOTPROVIDED',
      svwz: `Anzahlung auf Rg. ${x.number} 40 Prozent`,
      bic: 'SSKMDEMMXXX',
      iban: iban(x),
      name: nameOf(x),
    })
    if (text.includes(x.number)) throw new Error('the number should be broken at ?21/?22')
    add({
      id: 'h2-mt940-anzahlung-auf-rechnung-wrapped',
      title: 'MT940 "Anzahlung auf Rg." with the number broken at a line boundary',
      why: 'German MT940 :86: ?21 "SVWZ+Anzahlung auf Rg. INV-" ?22 "2026-0…" (27 characters a line), 40 % of the invoice, from the customer’s IBAN',
      tags: ['mt940', 'wrap', 'advance-on-invoice'],
      payment: tx('h2-mt940-anzahlung-auf-rechnung-wrapped', x, pct(x.amount, 40), after([x]), {
        description: text,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: pct(x.amount, 40) }),
    })
  }
  {
    const x = p.pick((i) => from('AT')(i) && hasAccount(i) && unique(i))
    add({
      id: 'h2-sepa-vorauszahlung-full',
      title: '"Vorauszahlung Rechnung" paying the whole invoice before it is due',
      why: `${SEPA} Austrian, from the customer’s IBAN: "VORAUSZAHLUNG RECHNUNG ${x.number}" for exactly its amount`,
      tags: ['sepa', 'advance', 'ordinary'],
      payment: tx('h2-sepa-vorauszahlung-full', x, x.amount, after([x], 3), {
        ...sepaFields(x, `VORAUSZAHLUNG RECHNUNG ${x.number}`),
      }),
      expect: applied([x]),
    })
  }
  {
    const x = p.pick(
      (i) => us(i) && hasAccount(i) && unique(i) && cents(i.amount) % 2 === 0 && Number(i.amount) > 400,
    )
    add({
      id: 'h2-ach-advance-on-invoice',
      title: 'ACH "ADVANCE ON INVOICE <number>" for half of it',
      why: 'ACH CCD+ addenda "ADVANCE ON INVOICE <n> 50PCT" from the customer’s account on file',
      tags: ['ach', 'ccd', 'advance-on-invoice'],
      payment: tx('h2-ach-advance-on-invoice', x, part(x.amount, 2), after([x]), {
        paymentReference: `ADVANCE ON INVOICE ${x.number} 50PCT\\`,
        description: `ORIG CO NAME:${bankName(nameOf(x), 16)} CO ENTRY DESCR:VENDOR PMT SEC:CCD IND NAME:NORTHWIND COMMERCE`,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const s = p.pick((i) => eu(i) && i.customerId !== a.customerId && /^INV-2026-/.test(i.number))
    const quote = s.number.replace(/^INV-/, 'AN-')
    add({
      id: 'h2-sepa-anzahlung-angebot',
      title: '"Anzahlung auf Angebot" whose number’s core is another customer’s invoice',
      why: `${SEPA} from the customer’s IBAN: "ANZAHLUNG AUF ANGEBOT ${quote}" (a quote), at the amount of its one open invoice`,
      tags: ['sepa', 'advance', 'other-prefix', 'trap'],
      payment: tx('h2-sepa-anzahlung-angebot', a, a.amount, after([a]), {
        ...sepaFields(a, `ANZAHLUNG AUF ANGEBOT ${quote}`),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const x = p.pick(
      (i) =>
        from('FR')(i) &&
        hasAccount(i) &&
        unique(i) &&
        cents(i.amount) % 2 === 0 &&
        ownAt(i, part(i.amount, 2)) !== undefined,
    )
    const y = p.markUsed(ownAt(x, part(x.amount, 2)) as BookInvoice)
    add({
      id: 'h2-camt-acompte-amount-elsewhere',
      title: '"ACOMPTE SUR FACTURE" for half the invoice, which is exactly another own invoice’s amount',
      why: `camt.053 AddtlNtryInf "/MOTIF ACOMPTE 50 % SUR FACTURE ${x.number}" from the customer’s IBAN; ${y.number} is open at exactly the amount`,
      tags: ['camt053', 'fr', 'advance-on-invoice', 'amount-elsewhere'],
      payment: tx('h2-camt-acompte-amount-elsewhere', x, part(x.amount, 2), after([x, y]), {
        paymentReference: `ACOMPTE 50 % SUR FACTURE ${x.number}`,
        description: `VIR SEPA RECU /DE ${bankName(nameOf(x), 35)} /MOTIF ACOMPTE 50 % SUR FACTURE ${x.number}`,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
}
