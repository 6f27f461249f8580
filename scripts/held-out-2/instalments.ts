import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankName, mt940, ref18, ustrd } from '../../test/support/bank-lines.js'
import { cents, part } from '../../test/support/case-kit.js'
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
  strangersAt,
  sum,
  tx,
  uk,
  unique,
} = kit

/** An invoice (even cents) whose customer also has exactly one other open invoice at half its amount. */
function withHalfElsewhere(filter: (invoice: BookInvoice) => boolean): [BookInvoice, BookInvoice] {
  const x = p.pick(
    (i) => filter(i) && unique(i) && cents(i.amount) % 2 === 0 && ownAt(i, part(i.amount, 2)) !== undefined,
  )
  return [x, p.markUsed(ownAt(x, part(x.amount, 2)) as BookInvoice)]
}

const SEPA = 'SEPA credit transfer, camt.053 RmtInf/Ustrd (140 characters)'

/** Stated instalments (rule 13) and the traps around them. */
export function instalmentCases(): void {
  {
    const [x, y] = withHalfElsewhere((i) => from('DE')(i) && hasAccount(i))
    add({
      id: 'h2-sepa-rate-1-von-2',
      title: '"1. Rate von 2" for half the invoice; the customer has another invoice at exactly that amount',
      why: `${SEPA} from the customer’s IBAN on file: "RECHNUNG <number> 1. RATE VON 2"; half of it is also ${y.number}’s amount`,
      tags: ['sepa', 'instalment', 'stated-parts', 'ordinary'],
      payment: tx('h2-sepa-rate-1-von-2', x, part(x.amount, 2), after([x, y]), {
        ...sepaFields(
          x,
          `RECHNUNG ${x.number} 1. RATE VON 2 KUNDE ${book.customerNumbers[x.customerId ?? '']}`,
        ),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => from('DE')(i) && hasAccount(i))
    add({
      id: 'h2-sepa-rate-2-von-2-first-missing',
      title: '"2. Rate von 2" although the first instalment never arrived',
      why: `${SEPA} from the customer’s IBAN: "2. RATE VON 2 RG <number>", no first instalment booked; ${y.number} is open at the amount. Half is paid, half stays open (nothing to write off)`,
      tags: ['sepa', 'instalment', 'stated-parts', 'trap'],
      payment: tx('h2-sepa-rate-2-von-2-first-missing', x, part(x.amount, 2), after([x, y], 35), {
        ...sepaFields(x, `2. RATE VON 2 RG ${x.number}`),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const x = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        unique(i) &&
        cents(i.amount) % 2 === 0 &&
        ownAt(i, part(i.amount, 2)) === undefined &&
        strangersAt(part(i.amount, 2), i).length > 0,
    )
    add({
      id: 'h2-sepa-rate-half-is-stranger',
      title: '"Rate 1/2" whose half is exactly another customer’s open invoice',
      why: `${SEPA} from the customer’s IBAN: "${x.number} RATE 1/2"; the half equals an open invoice of a different customer, which is irrelevant`,
      tags: ['sepa', 'instalment', 'stated-parts', 'trap'],
      payment: tx('h2-sepa-rate-half-is-stranger', x, part(x.amount, 2), after([x]), {
        ...sepaFields(x, `${x.number} RATE 1/2`),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => from('DE')(i) && hasAccount(i))
    add({
      id: 'h2-sepa-rate-new-account',
      title: 'Instalment wording from an account not on file; the customer has another invoice at the amount',
      why: `${SEPA} "1. RATE VON 2 ${x.number}" from an IBAN bankrec has never seen, name like the customer’s; ${y.number} is open at exactly the amount`,
      tags: ['sepa', 'instalment', 'stated-parts', 'unverified', 'trap'],
      payment: tx('h2-sepa-rate-new-account', x, part(x.amount, 2), after([x, y]), {
        ...sepaFields(x, `1. RATE VON 2 ${x.number}`),
        counterpartyAccountMasked: 'DE71 4306 0967 1182 9354 00',
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => eu(i) && hasAccount(i))
    add({
      id: 'h2-paypal-rate',
      title: 'A PayPal transfer quoting instalment 1 of 2 of an invoice',
      why: `${SEPA} from PAYPAL EUROPE S.A R.L. ET CIE S.C.A (a PSP, pays for many): "PP.4711.PP RATE 1 VON 2 ${x.number}"; ${y.number} is open at the amount`,
      tags: ['sepa', 'instalment', 'psp', 'trap'],
      payment: tx('h2-paypal-rate', x, part(x.amount, 2), after([x, y]), {
        paymentReference: ustrd(
          `PP.8213.PP . ${bankName(nameOf(x), 30)}, Ihr Einkauf bei NORTHWIND, RATE 1 VON 2 ${x.number}`,
        ),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'PAYPAL EUROPE S.A R.L. ET CIE S.C.A',
        counterpartyAccountMasked: 'LU89 7510 0013 5104 2000 E',
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const x = p.pick(
      (i) => from('DE')(i) && hasAccount(i) && unique(i) && new Decimal(i.amount).greaterThan(300),
    )
    add({
      id: 'h2-sepa-rate-wrong-fraction',
      title: '"1. Rate von 2" paying a third of the invoice',
      why: `${SEPA} from the customer’s IBAN: "RE ${x.number} 1. RATE VON 2" but the amount is a third: the statement and the money disagree`,
      tags: ['sepa', 'instalment', 'stated-parts', 'trap'],
      payment: tx('h2-sepa-rate-wrong-fraction', x, part(x.amount, 3), after([x]), {
        ...sepaFields(x, `RE ${x.number} 1. RATE VON 2`),
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => from('DE')(i) && hasAccount(i))
    const text = mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: 'NOTPROVIDED',
      svwz: `Zahlung Maschine 1. Rate von 2 zu Rechnung ${x.number}`,
      bic: 'HYVEDEMMXXX',
      iban: iban(x),
      name: nameOf(x),
    })
    if (!text.includes('1. Ra?22te von 2')) throw new Error('the ?21 line should end in "1. Ra"')
    add({
      id: 'h2-mt940-rate-wrapped',
      title: 'MT940 line boundary splits "1. Rate von 2"',
      why: `German MT940 :86: 166 with ?20 EREF+, ?21 "SVWZ+Zahlung Maschine 1. Ra" ?22 "te von 2 zu Rechnung …" (27 characters a line), from the customer’s IBAN; ${y.number} open at the amount`,
      tags: ['mt940', 'wrap', 'instalment', 'stated-parts'],
      payment: tx('h2-mt940-rate-wrapped', x, part(x.amount, 2), after([x, y]), {
        description: text,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const x = p.pick(
      (i) => uk(i) && hasAccount(i) && unique(i) && cents(i.amount) % 3 === 0 && Number(i.amount) > 300,
    )
    const third = new Decimal(x.amount).div(3).toFixed(2)
    add({
      id: 'h2-fps-inst-1of3',
      title: 'Faster Payment "INST 1/3" for a third of the invoice',
      why: 'UK Faster Payments credit, 18-character reference "<number> INST 1/3", from the customer’s sort code and account',
      tags: ['fps', 'uk', 'instalment', 'stated-parts', 'ordinary'],
      payment: tx('h2-fps-inst-1of3', x, third, after([x]), {
        paymentReference: ref18(`${x.number} INST 1/3`),
        description: `FASTER PAYMENTS RECEIPT REF ${ref18(`${x.number} INST 1/3`)} FROM ${bankName(nameOf(x), 18)}`,
        counterpartyName: bankName(nameOf(x), 18),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: third }),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => from('FR')(i) && hasAccount(i))
    add({
      id: 'h2-camt-echeance',
      title: 'French "ECHEANCE 1/2 FACTURE" for half the invoice',
      why: `camt.053 AddtlNtryInf "VIR SEPA RECU /DE ${bankName(nameOf(x), 20)} /MOTIF ECHEANCE 1/2 FACTURE …" from the customer’s IBAN; ${y.number} open at the amount`,
      tags: ['camt053', 'instalment', 'fr', 'stated-parts'],
      payment: tx('h2-camt-echeance', x, part(x.amount, 2), after([x, y]), {
        paymentReference: ustrd(`ECHEANCE 1/2 FACTURE ${x.number}`),
        description: `VIR SEPA RECU /DE ${bankName(nameOf(x), 35)} /MOTIF ECHEANCE 1/2 FACTURE ${x.number} /REF NOTPROVIDED`,
        counterpartyName: bankName(nameOf(x)),
        counterpartyAccountMasked: iban(x),
      }),
      expect: applied([x], { [x.id]: part(x.amount, 2) }),
    })
  }
  {
    const x = p.pick((i) => from('NL')(i) && hasAccount(i) && unique(i) && cents(i.amount) % 2 === 1)
    const first = new Decimal(x.amount).div(2).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2)
    add({
      id: 'h2-sepa-termijn-odd-cents',
      title: '"TERMIJN 1 VAN 2" of an invoice with odd cents (the half rounded up)',
      why: `${SEPA} Dutch "BETALING TERMIJN 1 VAN 2 FACTUUR <number>" from the customer’s IBAN; ${x.amount} / 2 rounded up to the cent`,
      tags: ['sepa', 'nl', 'instalment', 'stated-parts', 'ordinary'],
      payment: tx('h2-sepa-termijn-odd-cents', x, first, after([x]), {
        ...sepaFields(x, `BETALING TERMIJN 1 VAN 2 FACTUUR ${x.number}`),
      }),
      expect: applied([x], { [x.id]: first }),
    })
  }
  {
    const [x, y] = withHalfElsewhere((i) => from('DE')(i) && hasAccount(i))
    add({
      id: 'h2-sepa-teilbetrag-half',
      title: 'Half the invoice without instalment wording; another own invoice has exactly that amount',
      why: `${SEPA} from the customer’s IBAN: "TEILBETRAG RECHNUNG ${x.number}" (no "Rate … von …"); ${y.number} is open at exactly the amount`,
      tags: ['sepa', 'partial', 'amount-elsewhere', 'trap'],
      payment: tx('h2-sepa-teilbetrag-half', x, part(x.amount, 2), after([x, y]), {
        ...sepaFields(x, `TEILBETRAG RECHNUNG ${x.number}`),
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const a = p.pick(
      (i) => from('DE')(i) && hasAccount(i) && othersOf(i).length >= 1 && cents(i.amount) % 2 === 0,
    )
    const b = p.markUsed(
      othersOf(a).find((o) => cents(o.amount) % 2 === 0) ?? (othersOf(a)[0] as BookInvoice),
    )
    const amount = new Decimal(sum(a, b)).div(2).toDecimalPlaces(2).toFixed(2)
    add({
      id: 'h2-sepa-rate-two-invoices',
      title: '"1. Rate von 2" naming two invoices, for half their total',
      why: `${SEPA} from the customer’s IBAN: "1. RATE VON 2 ZU RG ${a.number} UND ${b.number}": how the half splits is not stated`,
      tags: ['sepa', 'instalment', 'multi', 'trap'],
      payment: tx('h2-sepa-rate-two-invoices', a, amount, after([a, b]), {
        ...sepaFields(a, `1. RATE VON 2 ZU RG ${a.number} UND ${b.number}`),
      }),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const x = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        unique(i) &&
        Number(i.amount) > 900 &&
        cents(i.amount) % 3 !== 0 &&
        (i.issueDate ?? '') < '2025-12-01',
    )
    const third = part(x.amount, 3)
    const rest = new Decimal(x.amount).minus(third).minus(third).toFixed(2)
    const first = tx('h2-sepa-rate-3-of-3-p1', x, third, after([x], 14), {
      ...sepaFields(x, `1. RATE VON 3 ${x.number}`),
    })
    const second = tx('h2-sepa-rate-3-of-3-p2', x, third, after([x], 44), {
      ...sepaFields(x, `2. RATE VON 3 ${x.number}`),
    })
    add({
      id: 'h2-sepa-rate-3-of-3',
      title: 'The third of three instalments pays what is open (a cent more than the others)',
      why: `${SEPA} from the customer’s IBAN: "3. RATE VON 3 <number>" after instalments 1 and 2 in the same run; the last pays the rounding rest`,
      tags: ['sepa', 'instalment', 'stated-parts', 'ordinary'],
      prior: [first, second],
      payment: tx('h2-sepa-rate-3-of-3', x, rest, after([x], 74), {
        ...sepaFields(x, `3. RATE VON 3 ${x.number}`),
      }),
      expect: applied([x], { [x.id]: rest }),
    })
  }
  {
    const x = p.pick((i) => from('AT')(i) && hasAccount(i) && unique(i) && cents(i.amount) % 2 === 0)
    add({
      id: 'h2-sepa-rate-3-von-2',
      title: '"3. Rate von 2": an instalment that cannot exist',
      why: `${SEPA} Austrian, from the customer’s IBAN: "3. RATE VON 2 RE ${x.number}" for half the invoice`,
      tags: ['sepa', 'instalment', 'stated-parts', 'trap'],
      payment: tx('h2-sepa-rate-3-von-2', x, part(x.amount, 2), after([x]), {
        ...sepaFields(x, `3. RATE VON 2 RECHNUNG ${x.number}`),
      }),
      expect: person('suggested', [x]),
    })
  }
  {
    const payer = p.pick((i) => from('DE')(i) && hasAccount(i))
    const s = p.pick(
      (i) =>
        eu(i) && i.customerId !== payer.customerId && cents(i.amount) % 2 === 0 && Number(i.amount) > 200,
    )
    add({
      id: 'h2-sepa-rate-stranger-invoice',
      title: 'A verified payer pays instalment 1 of 2 of another customer’s invoice',
      why: `${SEPA} from ${bankName(nameOf(payer), 30)}’s IBAN on file: "1. RATE VON 2 RECHNUNG ${s.number}", an invoice of ${bankName(nameOf(s), 30)}`,
      tags: ['sepa', 'instalment', 'third-party', 'trap'],
      payment: tx('h2-sepa-rate-stranger-invoice', payer, part(s.amount, 2), after([s, payer]), {
        ...sepaFields(payer, `1. RATE VON 2 RECHNUNG ${s.number}`),
      }),
      expect: person('suggested', [s]),
    })
  }
}
