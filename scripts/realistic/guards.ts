/**
 * Bank lines where the evidence does not rule out the alternatives, built so: money that is not for an open invoice
 * (advances, payouts, numbers not issued yet), numbers that are not invoice numbers, payers that are not verified,
 * amounts that do not add up. A careful accountant applies none of them by itself.
 */
import { Decimal } from 'decimal.js'
import { bankLine, bankName, mt940, ustrd } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'

type Kit = ReturnType<typeof caseKit>

const ADVANCES = [
  ['DE', 'ANZAHLUNG AUFTRAG {o} LT. AUFTRAGSBESTAETIGUNG'],
  ['DE', 'Vorauszahlung gem. Proforma PF-{o}'],
  ['DE', 'Abschlagszahlung 1 Bauvorhaben {o}'],
  ['FR', 'ACOMPTE 30 % COMMANDE {o}'],
  ['ES', 'ANTICIPO PEDIDO {o}'],
  ['IT', 'ANTICIPO ORDINE N. {o}'],
  ['NL', 'AANBETALING ORDER {o}'],
  ['US', 'ADVANCE PAYMENT PO {o}'],
  ['US', 'DEPOSIT FOR ORDER {o}'],
  ['GB', 'PREPAYMENT {o}'],
  ['US', 'PREPAYMENT PROFORMA {o}'],
  ['DE', 'Anzahlung {o}'],
] as const

const PSPS = [
  ['STRIPE PAYMENTS EUROPE LTD', 'IE64 STRP 9900 0012 3456 78', 'STRIPE PAYOUT po_1Ox{r}'],
  ['ADYEN N.V.', 'NL12 ADYB 2017 4000 12', 'ADYEN SETTLEMENT BATCH {r} NORTHWIND'],
  ['PAYPAL EUROPE S.A.R.L. ET CIE S.C.A', 'LU89 0110 0000 0000 1234', 'PAYPAL AUSZAHLUNG {r}'],
  ['MOLLIE B.V.', 'NL55 ABNA 0421 6437 09', 'Mollie uitbetaling st_{r}'],
  ['KLARNA BANK AB', 'SE35 5000 0000 0549 1000 0003', 'KLARNA SETTLEMENT {r}'],
  ['SUMUP LIMITED', 'IE29 AIBK 9311 5212 3456 78', 'SUMUP PAYOUT {r}'],
] as const

export function guardCases(kit: Kit): void {
  const { p, book, add, person, tx, nameOf, iban, hasAccount, unique, sum, postedAfter, strangerWith } = kit
  const country = (invoice: Parameters<typeof nameOf>[0]) => p.country(invoice)

  ADVANCES.forEach(([where, wording], at) => {
    const a = p.pick((i) => country(i) === where && unique(i) && (where === 'US' || hasAccount(i)))
    const id = `advance-${at + 1}`
    const text = wording.replace('{o}', `${p.random.int(2026, 2026)}-${p.random.digits(4)}`)
    add({
      id,
      title: 'Advance or down-payment wording at the amount of the customer’s only such open invoice',
      why: `Bank credit from the customer with the remittance "${text}": money for an order, not for an open invoice`,
      tags: ['advance', 'guard'],
      payment: tx(id, a, a.amount, '2026-03-30', {
        paymentReference: ustrd(text),
        description: where === 'US' ? 'ACH CREDIT CCD' : 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: hasAccount(a) && where !== 'US' ? iban(a) : null,
      }),
      expect: person('unmatched'),
    })
  })
  const FUTURE = ['INV-2026-0', '1', 'SI-0', '26', 'INV-2026-0', 'INV-2026-0']
  FUTURE.forEach((series, at) => {
    const number = p.unissued(series, p.random.int(40, 700))
    const a = p.pick((i) => unique(i) && i.number.slice(0, 3) === number.slice(0, 3))
    const id = `future-number-${at + 1}`
    add({
      id,
      title: 'Pays an invoice number not issued yet',
      why: `Remittance "INVOICE ${number}": the customer pays against a pro-forma or order confirmation whose invoice does not exist yet`,
      tags: ['future', 'advance', 'guard'],
      payment: tx(id, a, a.amount, '2026-03-31', {
        paymentReference: `INVOICE ${number}`,
        description: 'CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: person('unmatched'),
    })
  })
  for (let n = 1; n <= 5; n++) {
    const a = p.pick((i) => (i.issueDate ?? '') >= '2026-03-05' && i.entityId === 'ent_eu')
    const id = `issued-after-${n}`
    add({
      id,
      title: 'The named invoice is dated weeks after the payment',
      why: 'SEPA Ustrd naming a number the customer had from an order confirmation; the invoice was issued after the booking',
      tags: ['dates', 'guard'],
      payment: tx(id, a, a.amount, '2026-02-10', {
        paymentReference: ustrd(`RECHNUNG ${a.number}`),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: hasAccount(a) ? iban(a) : null,
      }),
      expect: person('suggested', [a]),
    })
  }
  for (let n = 1; n <= 8; n++) {
    const a = p.pick((i) => i.entityId === 'ent_eu' && p.invoicesOf(i.customerId ?? '').length >= 4)
    const others = p
      .invoicesOf(a.customerId ?? '')
      .filter((i) => i.id !== a.id && (i.issueDate ?? '') < '2026-03-20')
      .slice(0, n % 2 === 0 ? 1 : 2)
      .map((i) => p.markUsed(i))
    const all = [a, ...others]
    const short = p.random.pick(['12.80', '45.00', '100.00', '7.35', '250.00'])
    if (new Decimal(sum(...all)).lessThanOrEqualTo(short)) continue
    const id = `short-multi-${n}`
    add({
      id,
      title: 'Several invoices named, short of their sum with no word why',
      why: `SEPA Ustrd listing ${all.length} numbers, the amount ${short} under their sum, no fee or deduction stated`,
      tags: ['multi', 'short', 'guard'],
      payment: tx(id, a, new Decimal(sum(...all)).minus(short).toFixed(2), '2026-03-28', {
        paymentReference: ustrd(all.map((i) => i.number).join(' ')),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: hasAccount(a) ? iban(a) : null,
      }),
      expect: person('suggested', all),
    })
  }
  for (let n = 1; n <= 5; n++) {
    const a = p.pick((i) => i.entityId === 'ent_us' && hasAccount(i) && unique(i))
    const id = `masked-tail-${n}`
    add({
      id,
      title: 'Only the last four account digits, no reference',
      why: 'US ACH credit in a bank API feed: counterparty account XXXXXX1234, no addenda; one open invoice of the customer has the amount',
      tags: ['ach', 'masked', 'payer', 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, 30), {
        description: 'ACH CREDIT',
        counterpartyAccountMasked: `XXXXXX${iban(a).slice(-4)}`,
      }),
      expect: person('suggested', [a]),
    })
  }
  PSPS.forEach(([name, account, text], at) => {
    const a = p.pick((i) => i.currency === 'EUR' && unique(i) && i.entityId === 'ent_eu')
    const learned = at % 2 === 0
    const id = `psp-payout-${at + 1}`
    add({
      id,
      title: `A ${name.split(' ')[0]} payout${learned ? ' whose account a person once matched to one customer' : ''}`,
      why: `SEPA credit from ${name}: "${text.split(' ')[0]} …" settles many card or wallet payments at once`,
      tags: ['psp', 'intermediary', 'guard', ...(learned ? ['learned'] : [])],
      ...(learned ? { customers: [{ ...p.customer(a.customerId ?? ''), learnedAccounts: [account] }] } : {}),
      payment: tx(id, a, a.amount, '2026-03-24', {
        paymentReference: text.replace('{r}', p.random.digits(10)),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: name,
        counterpartyAccountMasked: account,
      }),
      expect: person('unmatched'),
    })
  })
  const LABELS = [
    'Ticket #{n}',
    'Policy No. {n}',
    'Order Nr. {n}',
    'Kundennr. {n}',
    'Contract {n}',
    'Ref {n}',
    'Case #{n}',
    'Bestellung {n}',
    'Claim no {n}',
    'Vertrags-Nr. {n}',
    'Member # {n}',
    'PO {n}',
  ]
  LABELS.forEach((label, at) => {
    const stranger = p.pick((i) => /^\d+$/.test(i.number) && i.currency !== 'NOK')
    const amount = new Decimal(stranger.amount).plus(p.random.int(150, 900)).toFixed(2)
    const id = `label-number-${at + 1}`
    add({
      id,
      title: `"${label.split(' ')[0]}" and a number that is another party’s invoice number`,
      why: `Credit from a party with no account on file, remittance "${label.replace('{n}', stranger.number)}": a ticket, policy, order or member number, more than the invoice's open amount`,
      tags: ['number-word', 'label', 'collision', 'guard'],
      payment: bankLine(`tx-${id}`, amount, stranger.currency, '2026-03-25', {
        paymentReference: label.replace('{n}', stranger.number),
        description: stranger.currency === 'USD' ? 'ACH CREDIT PPD' : 'SEPA CREDIT TRANSFER',
        counterpartyName: p.random.pick([
          'J. SMITH',
          'CITY OF SPRINGFIELD',
          'KRAUSE, MARTINA',
          'HELPDESK SERVICES',
        ]),
      }),
      expect: person('unmatched'),
    })
  })
  for (let n = 1; n <= 6; n++) {
    const a = p.pick((i) => !hasAccount(i) && unique(i) && i.entityId === 'ent_eu')
    const id = `name-only-${n}`
    add({
      id,
      title: 'The customer’s name, an unknown account, no reference',
      why: 'SEPA credit with Ustrd "ZAHLUNG" from an IBAN not on file; the name is the customer’s, one open invoice has the amount',
      tags: ['payer', 'names', 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, 20), {
        paymentReference: 'ZAHLUNG',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: `DE${p.random.int(10, 99)} 1001 0010 ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(2)}`,
      }),
      expect: person('suggested', [a]),
    })
  }
  for (const [n, amount] of ['119.00', '250.00', '49.00', '595.00'].entries()) {
    const id = `common-price-${n + 1}`
    add({
      id,
      title: 'A common price from a private person, no reference',
      why: `SEPA credit of ${amount} with Ustrd "DANKE" from an unknown person: dozens of open invoices have that amount`,
      tags: ['amount', 'guard'],
      payment: bankLine(`tx-${id}`, amount, 'EUR', '2026-03-21', {
        paymentReference: 'DANKE',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: p.random.pick(['MAX MUSTERMANN', 'ERIKA MUSTER', 'JAN JANSEN', 'MARIE DUPONT']),
      }),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick(
      (i) =>
        i.entityId === 'ent_us' && unique(i) && strangerWith(String(Number(i.number) + 11), i) !== undefined,
    )
    const stranger = strangerWith(String(Number(a.number) + 11), a)
    const id = 'check-no-collision'
    add({
      id,
      title: '"CHECK NO." with the payer’s check number, another customer’s invoice number',
      why: 'US remote deposit capture line "DEPOSIT CHECK NO. <n>": the check number is digits-only like our invoice numbers',
      tags: ['number-word', 'collision', 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, 30), {
        description: `REMOTE DEPOSIT CHECK NO. ${stranger?.number} ${bankName(nameOf(a), 20)}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => i.entityId === 'ent_eu' && p.country(i) === 'DE' && hasAccount(i) && unique(i))
    const id = 'mt940-anzahlung'
    add({
      id,
      title: 'MT940 down payment from the customer’s account',
      why: 'MT940 :86: SVWZ+ "ANZAHLUNG KOMMISSION <n>" from the known IBAN, at the amount of one open invoice',
      tags: ['mt940', 'advance', 'guard'],
      payment: tx(id, a, a.amount, '2026-03-30', {
        description: mt940({
          gvc: '166',
          postingText: 'SEPA-UEBERWEISUNG',
          svwz: `ANZAHLUNG KOMMISSION ${book.customerNumbers[a.customerId ?? '']}-${p.random.digits(3)}`,
          bic: 'COBADEFFXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: person('unmatched'),
    })
  }
}
