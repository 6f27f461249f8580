/**
 * Bank lines that state what part of which invoice they pay: X12 820 remittance with paid, invoiced and adjusted
 * amounts per invoice, instalment wording ("1. Rate von 2", "instalment 1 of 3", "échéance 1/2"), an advance on a
 * named invoice ("acompte sur facture …"), and an order number under its label that happens to be another
 * customer's invoice number. Each is applied when the statement and the payer rule out the alternatives; the
 * negative cases beside each (a sum that does not add up, a wrong instalment amount, an unverified payer, a quote
 * instead of an invoice, another customer's invoice) wait for a person.
 */
import { Decimal } from 'decimal.js'
import { bankLine, bankName, ctx820, mt940, ustrd } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'

type Kit = ReturnType<typeof caseKit>

/** ADX02 adjustment reason codes of X12 820: pricing error, item not received, damaged, quantity contested. */
const ADX_CODES = ['01', '04', '05', '06'] as const

const INSTALMENTS = [
  ['DE', '{n} {i}. RATE VON {m}'],
  ['DE', 'Rate {i}/{m} Rechnung {n}'],
  ['FR', 'ECHEANCE {i}/{m} FACTURE {n}'],
  ['NL', 'Termijn {i} van {m} factuur {n}'],
  ['FR', '{i}E ECHEANCE SUR {m} FACT {n}'],
  ['DE', 'Rechnung {n} {i}. Rate von {m}'],
] as const

const ADVANCES_ON_INVOICE = [
  ['FR', 'ACOMPTE SUR FACTURE {n}'],
  ['DE', 'Anzahlung auf Rechnung {n}'],
  ['NL', 'Aanbetaling op factuur {n}'],
  ['DE', 'Abschlagszahlung zur Rechnung {n}'],
] as const

const ORDER_LABELS = ['Auftrags-Nr. {o}', 'Vertrags-Nr. {o}', 'Bestell-Nr. {o}', 'Auftragsnummer {o}']

export function statedPartCases(kit: Kit): void {
  const { p, add, applied, person, tx, nameOf, iban, hasAccount, unique, postedAfter } = kit
  const eur = (invoice: BookInvoice) =>
    invoice.currency === 'EUR' && invoice.entityId === 'ent_eu' && hasAccount(invoice)
  const part = (invoice: BookInvoice, of: number) =>
    new Decimal(invoice.amount).dividedBy(of).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2)
  const sepa = (invoice: BookInvoice, text: string, verified = true) => ({
    paymentReference: ustrd(text),
    description: p.random.pick(['SEPA CREDIT TRANSFER', 'VIREMENT SEPA RECU', 'SEPA-GUTSCHRIFT']),
    counterpartyName: bankName(nameOf(invoice)),
    counterpartyAccountMasked: verified
      ? iban(invoice)
      : `DE${p.random.int(10, 99)} 1001 0010 ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(2)}`,
    customerReference: 'NOTPROVIDED',
  })
  /** An open invoice of the same customer at exactly `amount`: the alternative a stated part must rule out. */
  const sibling = (invoice: BookInvoice, amount: string, id: string): BookInvoice => {
    const { paymentReference: _reference, earlyPaymentDiscount: _discount, ...rest } = invoice
    return { ...rest, id: `inv_sp-${id}`, number: `${invoice.number}-S`, amount }
  }

  // X12 820 with per-invoice paid amounts and a stated adjustment on the first invoice.
  const ctx = (n: number, kind: 'apply' | 'sum' | 'stranger' | 'over') => {
    const date = '2026-03-27'
    const a = p.pick(
      (i) =>
        i.entityId === 'ent_us' &&
        new Decimal(i.amount).greaterThan(400) &&
        p.invoicesOf(i.customerId ?? '').filter((o) => (o.issueDate ?? '') <= date).length >= 3,
    )
    const others = p
      .invoicesOf(a.customerId ?? '')
      .filter((o) => o.id !== a.id && (o.issueDate ?? '') <= date)
      .slice(0, 1 + (n % 2))
      .map((o) => p.markUsed(o))
    if (kind === 'stranger') {
      others[others.length - 1] = p.pick(
        (i) => i.entityId === 'ent_us' && i.customerId !== a.customerId && (i.issueDate ?? '') <= date,
      )
    }
    const all = [a, ...others]
    const cut = `${p.random.int(20, 180)}.${p.random.pick(['00', '50', '25'])}`
    const code = p.random.pick(ADX_CODES)
    const paid = (invoice: BookInvoice) =>
      invoice === a
        ? new Decimal(a.amount).minus(cut).toFixed(2)
        : kind === 'over' && invoice === all[all.length - 1]
          ? new Decimal(invoice.amount).plus('40.00').toFixed(2)
          : invoice.amount
    const total = all.reduce((s, i) => s.plus(paid(i)), new Decimal(0))
    const amount = (kind === 'sum' ? total.minus('50.00') : total).toFixed(2)
    const id = `ctx-adjustment-${kind}-${n}`
    const why = {
      apply: 'the paid amounts add up to the payment, each invoice is the payer’s, the deduction is stated',
      sum: 'the paid amounts add up to 50.00 more than the payment (BPR): the remittance does not explain it',
      stranger:
        'the last RMR names another customer’s invoice number: a typo or a collision, a person decides',
      over: 'the last RMR pays 40.00 more than the invoice has open: the statement does not fit the books',
    }[kind]
    add({
      id,
      title: `ACH CTX 820 with a stated deduction (ADX) on one of ${all.length} invoices`,
      why: `X12 820 RMR*IV*<n>*PI*<paid>*<invoiced> per invoice, ADX*-${cut}*${code} under the first; ${why}`,
      tags: ['ach', 'ctx', 'multi', 'stated-part', ...(kind === 'apply' ? ['ordinary'] : ['guard'])],
      payment: tx(id, a, amount, date, {
        paymentReference: ctx820({
          payer: bankName(nameOf(a)),
          trace: p.random.digits(10),
          total: amount,
          date: '20260327',
          lines: all.map((invoice) => ({
            number: invoice.number,
            paid: paid(invoice),
            invoiced: invoice.amount,
            ...(invoice === a ? { adjustment: { amount: `-${cut}`, code } } : {}),
          })),
        }),
        description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect:
        kind === 'apply'
          ? applied(all, Object.fromEntries(all.map((invoice) => [invoice.id, paid(invoice)])))
          : person('suggested', all),
    })
  }
  for (let n = 1; n <= 4; n++) ctx(n, 'apply')
  ctx(1, 'sum')
  ctx(2, 'sum')
  ctx(1, 'stranger')
  ctx(1, 'over')

  // Instalments: the amount is the invoice divided by the number of instalments.
  INSTALMENTS.forEach(([country, wording], at) => {
    const a = p.pick(
      (i) => eur(i) && p.country(i) === country && new Decimal(i.amount).greaterThan(150) && unique(i),
    )
    const m = 2 + (at % 3)
    const amount = part(a, m)
    const text = wording.replace('{n}', a.number).replace('{i}', '1').replace('{m}', String(m))
    const id = `instalment-${at + 1}`
    const twin = at % 2 === 0 ? sibling(a, amount, id) : null
    const date = postedAfter(a, p.random.int(10, 40))
    add({
      id,
      title: `Instalment 1 of ${m} of the named invoice from the customer’s account`,
      why: `${country === 'DE' ? 'MT940 :86: SVWZ+' : 'SEPA Ustrd'} "${text}": a stated instalment, the invoice divided by ${m}, from the known IBAN${twin ? '; another open invoice of the customer has exactly the instalment amount' : ''}`,
      tags: ['sepa', 'partial', 'instalment', 'stated-part', 'ordinary'],
      ...(twin ? { invoices: [twin] } : {}),
      payment: tx(
        id,
        a,
        amount,
        date,
        country === 'DE'
          ? {
              description: mt940({
                gvc: '166',
                postingText: 'SEPA-UEBERWEISUNG',
                eref: 'NOTPROVIDED',
                svwz: text,
                bic: 'COBADEFFXXX',
                iban: iban(a),
                name: nameOf(a),
              }),
              counterpartyName: bankName(nameOf(a)),
              counterpartyAccountMasked: iban(a),
            }
          : sepa(a, text),
      ),
      expect: applied([a], { [a.id]: amount }),
    })
  })
  for (const [at, kind] of (['wrong', 'wrong', 'unverified'] as const).entries()) {
    const a = p.pick((i) => eur(i) && new Decimal(i.amount).greaterThan(150) && unique(i))
    const amount = kind === 'wrong' ? part(a, 3) : part(a, 2)
    const id = `instalment-${kind}-${at + 1}`
    const twin = sibling(a, amount, id)
    add({
      id,
      title:
        kind === 'wrong'
          ? 'Instalment 1 of 2, but the amount is a third of the invoice'
          : 'Instalment 1 of 2 from an account not on file',
      why:
        kind === 'wrong'
          ? `SEPA Ustrd "${a.number} 1. RATE VON 2" for a third of the invoice: the statement and the amount disagree, and another open invoice of the customer has exactly the amount`
          : `SEPA Ustrd "${a.number} 1. RATE VON 2" from an unknown IBAN in the customer’s name; another open invoice of the customer has exactly the amount`,
      tags: ['sepa', 'partial', 'instalment', 'stated-part', 'guard'],
      invoices: [twin],
      payment: tx(id, a, amount, postedAfter(a, 20), sepa(a, `${a.number} 1. RATE VON 2`, kind === 'wrong')),
      expect: person('suggested', [a]),
    })
  }

  // A number under an order or contract label that is another customer's invoice number.
  const labelled = (at: number, verified: boolean) => {
    const stranger = p.pick((i) => /^\d{6,}$/.test(i.number) && i.currency === 'EUR')
    const a = p.pick(
      (i) => eur(i) && p.country(i) === 'DE' && unique(i) && i.customerId !== stranger.customerId,
    )
    const label = (ORDER_LABELS[at % ORDER_LABELS.length] as string).replace('{o}', stranger.number)
    const id = `order-label-${verified ? 'verified' : 'unverified'}-${at + 1}`
    add({
      id,
      title: `"${label.split(' ')[0]}" with another customer’s invoice number, ${verified ? 'from the customer’s account' : 'from an account not on file'}`,
      why: `MT940 :86: SVWZ+ "${label}" (the payer’s own order or contract number) ${verified ? 'from the known IBAN; the customer has exactly one open invoice at the amount' : 'from an unknown IBAN in the customer’s name: the name alone does not verify the payer'}`,
      tags: ['mt940', 'label', 'collision', 'stated-part', verified ? 'ordinary' : 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(5, 30)), {
        description: mt940({
          gvc: '166',
          postingText: 'SEPA-UEBERWEISUNG',
          eref: 'NOTPROVIDED',
          svwz: label,
          bic: 'BYLADEMMXXX',
          iban: verified ? iban(a) : `DE${p.random.int(10, 99)}700100800${p.random.digits(10)}`,
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: verified ? iban(a) : null,
      }),
      expect: verified ? applied([a]) : person('suggested', [a]),
    })
  }
  for (let at = 0; at < 4; at++) labelled(at, true)
  labelled(4, false)
  labelled(5, false)

  // An advance on a named invoice is a part payment of it; an advance on a quote waits.
  ADVANCES_ON_INVOICE.forEach(([country, wording], at) => {
    const a = p.pick((i) => eur(i) && p.country(i) === country && new Decimal(i.amount).greaterThan(200))
    const amount = new Decimal(a.amount).times(p.random.pick(['0.3', '0.5', '0.4'])).toFixed(2)
    const text = wording.replace('{n}', a.number)
    const id = `advance-on-invoice-${at + 1}`
    add({
      id,
      title: 'Advance wording naming the invoice it is paid on, from the customer’s account',
      why: `SEPA Ustrd "${text}": a part payment of the named invoice from the known IBAN, not money for another order`,
      tags: ['sepa', 'advance', 'partial', 'stated-part', 'ordinary'],
      payment: tx(id, a, amount, postedAfter(a, p.random.int(5, 30)), sepa(a, text)),
      expect: applied([a], { [a.id]: amount }),
    })
  })
  {
    const a = p.pick((i) => eur(i) && p.country(i) === 'FR' && unique(i))
    const id = 'advance-on-quote-1'
    const text = `ACOMPTE SUR DEVIS D-2026-${p.random.digits(3)}`
    add({
      id,
      title: 'Acompte on a quote at the amount of the customer’s only such open invoice',
      why: `SEPA Ustrd "${text}" from the known IBAN: money for a quoted order, not for the open invoice`,
      tags: ['sepa', 'advance', 'stated-part', 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, 20), sepa(a, text)),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => eur(i) && p.country(i) === 'DE' && unique(i))
    const id = 'advance-on-quote-2'
    const text = `Anzahlung auf Angebot AN-2026-${p.random.digits(4)}`
    add({
      id,
      title: 'Anzahlung on an offer at the amount of the customer’s only such open invoice',
      why: `SEPA Ustrd "${text}" from the known IBAN: a down payment on an offer, not for the open invoice`,
      tags: ['sepa', 'advance', 'stated-part', 'guard'],
      payment: tx(id, a, a.amount, postedAfter(a, 20), sepa(a, text)),
      expect: person('unmatched'),
    })
  }
  {
    const a = p.pick((i) => eur(i) && p.country(i) === 'FR' && new Decimal(i.amount).greaterThan(200))
    const amount = new Decimal(a.amount).times('0.3').toFixed(2)
    const id = 'advance-on-invoice-unknown-payer'
    const text = `ACOMPTE SUR FACTURE ${a.number}`
    add({
      id,
      title: 'Acompte sur facture from a party bankrec does not know',
      why: `SEPA Ustrd "${text}" from an unknown IBAN and a private person's name: nothing says the customer paid it`,
      tags: ['sepa', 'advance', 'stated-part', 'guard'],
      payment: bankLine(`tx-${id}`, amount, a.currency, postedAfter(a, 20), {
        paymentReference: text,
        description: 'VIREMENT SEPA RECU',
        counterpartyName: p.random.pick(['M. OU MME MARTIN JEAN', 'DURAND PIERRE']),
        counterpartyAccountMasked: `FR76 3000 4000 ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(4)} 123`,
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const stranger = p.pick((i) => eur(i) && new Decimal(i.amount).greaterThan(200))
    const a = p.pick((i) => eur(i) && p.country(i) === 'DE' && i.customerId !== stranger.customerId)
    const amount = new Decimal(stranger.amount).times('0.5').toFixed(2)
    const id = 'advance-on-stranger-invoice'
    const text = `Anzahlung auf Rechnung ${stranger.number}`
    add({
      id,
      title: 'Anzahlung auf Rechnung naming another customer’s invoice, from a verified payer',
      why: `SEPA Ustrd "${text}" from the known IBAN of another customer: a typo or a third party, a person decides`,
      tags: ['sepa', 'advance', 'stated-part', 'guard'],
      payment: tx(id, a, amount, postedAfter(stranger, 20), sepa(a, text)),
      expect: person('suggested', [stranger]),
    })
  }
}
