/**
 * The limits of the paths that apply a stated part (docs/matching.md rules 12–14 and rule 6's advance on a named
 * invoice), each beside a neighbour that must still apply: an X12 820 remittance that contradicts itself (a line
 * paying more than it states as invoiced, the same RMR twice) beside a clean one with a stated ADX; an instalment
 * that cannot exist ("3. RATE VON 2") beside "1. Rate von 2"; another customer's invoice number in its own printed
 * form under an order label at its exact amount beside an order number that is no invoice's printed form; an
 * advance on a named invoice larger than the invoice beside one for 40 % of it.
 */
import { Decimal } from 'decimal.js'
import { bankName, ctx820, mt940, ustrd } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'

type Kit = ReturnType<typeof caseKit>

export function guardTwoCases(kit: Kit): void {
  const { p, add, applied, person, tx, nameOf, iban, hasAccount, unique, postedAfter } = kit
  const eur = (invoice: BookInvoice) =>
    invoice.currency === 'EUR' && invoice.entityId === 'ent_eu' && hasAccount(invoice)
  const money = (value: Decimal.Value) => new Decimal(value).toFixed(2)
  const sepa = (invoice: BookInvoice, text: string) => ({
    paymentReference: ustrd(text),
    description: p.random.pick(['SEPA CREDIT TRANSFER', 'VIREMENT SEPA RECU', 'SEPA-GUTSCHRIFT']),
    counterpartyName: bankName(nameOf(invoice)),
    counterpartyAccountMasked: iban(invoice),
    customerReference: 'NOTPROVIDED',
  })
  const svwz = (invoice: BookInvoice, text: string) => ({
    description: mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: 'NOTPROVIDED',
      svwz: text,
      bic: 'BYLADEMMXXX',
      iban: iban(invoice),
      name: nameOf(invoice),
    }),
    counterpartyName: bankName(nameOf(invoice)),
    counterpartyAccountMasked: iban(invoice),
  })

  // X12 820: two invoices of one customer; the lines' paid amounts add up to what both have open.
  const ctx = (n: number, kind: 'clean' | 'moved' | 'twice') => {
    const date = '2026-03-27'
    const a = p.pick(
      (i) =>
        i.entityId === 'ent_us' &&
        new Decimal(i.amount).greaterThan(300) &&
        p.invoicesOf(i.customerId ?? '').filter((o) => o.id !== i.id && (o.issueDate ?? '') <= date).length >=
          1 &&
        (i.issueDate ?? '') <= date,
    )
    const b = p.markUsed(
      p
        .invoicesOf(a.customerId ?? '')
        .find((o) => o.id !== a.id && (o.issueDate ?? '') <= date) as BookInvoice,
    )
    const cut = money(new Decimal(a.amount).times('0.1').toDecimalPlaces(0))
    const code = p.random.pick(['01', '04', '05', '06'])
    const lines =
      kind === 'twice'
        ? [
            // The first invoice's half with the other half deducted, sent twice: the remittance contradicts itself.
            ...[1, 2].map(() => ({
              number: a.number,
              paid: money(new Decimal(a.amount).dividedBy(2).toDecimalPlaces(2, Decimal.ROUND_DOWN)),
              invoiced: a.amount,
              adjustment: {
                amount: `-${money(new Decimal(a.amount).minus(new Decimal(a.amount).dividedBy(2).toDecimalPlaces(2, Decimal.ROUND_DOWN)))}`,
                code,
              },
            })),
            { number: b.number, paid: b.amount, invoiced: b.amount },
          ]
        : [
            {
              number: a.number,
              paid: money(new Decimal(a.amount).minus(cut)),
              invoiced: a.amount,
              adjustment: { amount: `-${cut}`, code },
            },
            // `moved`: the deduction is paid on the second invoice instead; `clean`: the deduction stays open.
            {
              number: b.number,
              paid: kind === 'moved' ? money(new Decimal(b.amount).plus(cut)) : b.amount,
              invoiced: b.amount,
            },
          ]
    const total = money(lines.reduce((sum, line) => sum.plus(line.paid), new Decimal(0)))
    const id = `g2-ctx-${kind}-${n}`
    const why = {
      clean:
        'a stated deduction (ADX) on the first line, the second paid in full: each invoice gets its line',
      moved: `the second line pays ${cut} more than it states as invoiced, the amount deducted on the first: money moved between invoices, a person splits it although the payment is what both have open`,
      twice:
        'the same RMR and ADX twice (a resent segment): the remittance contradicts itself, although the payment is what both have open',
    }[kind]
    add({
      id,
      title: `ACH CTX 820 paying two invoices of one customer (${kind})`,
      why: `X12 820 RMR*IV*<n>*PI*<paid>*<invoiced> with ADX*-<deduction>*${code}; ${why}`,
      tags: ['ach', 'ctx', 'multi', 'stated-part', kind === 'clean' ? 'ordinary' : 'guard'],
      payment: tx(id, a, total, date, {
        paymentReference: ctx820({
          payer: bankName(nameOf(a)),
          trace: p.random.digits(10),
          total,
          date: '20260327',
          lines,
        }),
        description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect:
        kind === 'clean'
          ? applied([a, b], { [a.id]: lines[0]?.paid ?? '', [b.id]: b.amount })
          : person('suggested', [a, b]),
    })
  }
  for (let n = 1; n <= 2; n++) for (const kind of ['clean', 'moved', 'twice'] as const) ctx(n, kind)

  // Instalments: "n. RATE VON m" with n > m cannot exist; "1. Rate von 2" at half the invoice is applied.
  for (const [at, [i, m]] of (
    [
      [1, 2],
      [3, 2],
      [1, 2],
      [4, 3],
    ] as const
  ).entries()) {
    const a = p.pick((x) => eur(x) && new Decimal(x.amount).greaterThan(150) && unique(x))
    const amount = money(new Decimal(a.amount).dividedBy(m).toDecimalPlaces(2, Decimal.ROUND_HALF_UP))
    const text = `${i}. RATE VON ${m} RECHNUNG ${a.number}`
    const possible = i <= m
    const id = `g2-instalment-${i}-of-${m}-${at + 1}`
    add({
      id,
      title: `Instalment ${i} of ${m} of the named invoice from the customer’s account`,
      why: `SEPA Ustrd "${text}" for the invoice divided by ${m}, from the known IBAN${possible ? '' : `: instalment ${i} of ${m} cannot exist, the text contradicts itself`}`,
      tags: ['sepa', 'partial', 'instalment', 'stated-part', possible ? 'ordinary' : 'guard'],
      payment: tx(id, a, amount, postedAfter(a, p.random.int(10, 40)), sepa(a, text)),
      expect: possible ? applied([a], { [a.id]: amount }) : person('suggested', [a]),
    })
  }

  // An order label over a number: another customer's invoice in its own printed form is a conflict; an order
  // number that is no invoice's printed form (digits only) is set aside and the payer's own invoice applies.
  for (let at = 0; at < 4; at++) {
    const printed = at % 2 === 0
    const stranger = p.pick(
      (i) => i.currency === 'EUR' && (printed ? /^INV-\d{4}-\d{5}$/ : /^\d{6,}$/).test(i.number),
    )
    const a = p.pick(
      (i) =>
        eur(i) &&
        p.country(i) === 'DE' &&
        unique(i) &&
        i.customerId !== stranger.customerId &&
        p.invoicesOf(i.customerId ?? '').every((o) => o.amount !== stranger.amount),
    )
    const label = `${at < 2 ? 'Auftrags-Nr.' : 'Bestell-Nr.'} ${stranger.number}`
    const amount = printed ? stranger.amount : a.amount
    const id = `g2-order-label-${printed ? 'printed' : 'digits'}-${at + 1}`
    add({
      id,
      title: printed
        ? 'An order label over another customer’s invoice number in its printed form, at that invoice’s amount'
        : 'An order label over a number of digits only, at the amount of the payer’s only such invoice',
      why: printed
        ? `MT940 :86: SVWZ+ "${label}" from the known IBAN of another customer, exactly the amount of ${stranger.number}: the number is printed as an invoice prints it, but the payer labels it an order number and is not its debtor; a person decides`
        : `MT940 :86: SVWZ+ "${label}" from the known IBAN: digits only, not an invoice's printed form, the payer's own order number; its one open invoice at the amount is applied`,
      tags: ['mt940', 'label', 'collision', 'stated-part', printed ? 'guard' : 'ordinary'],
      payment: tx(
        id,
        a,
        amount,
        postedAfter(
          printed && (stranger.issueDate ?? '') > (a.issueDate ?? '') ? stranger : a,
          p.random.int(5, 30),
        ),
        svwz(a, label),
      ),
      expect: printed ? person('suggested', [stranger]) : applied([a]),
    })
  }

  // An advance on a named invoice is at most what the invoice has open.
  for (const [at, share] of (['0.4', '1.2', '0.4', '1.25'] as const).entries()) {
    const a = p.pick(
      (i) => eur(i) && p.country(i) === 'FR' && new Decimal(i.amount).greaterThan(200) && unique(i),
    )
    const amount = money(new Decimal(a.amount).times(share))
    const text = `ACOMPTE SUR FACTURE ${a.number}`
    const part = new Decimal(share).lessThan(1)
    const id = `g2-acompte-${part ? 'part' : 'over'}-${at + 1}`
    add({
      id,
      title: `Acompte on the named invoice for ${new Decimal(share).times(100).toFixed(0)} % of it`,
      why: `SEPA Ustrd / camt.053 "${text}" from the known IBAN for ${new Decimal(share).times(100).toFixed(0)} % of the invoice: ${part ? 'a part payment of it' : 'more than the invoice has open is not a part payment of it; a person decides'}`,
      tags: ['sepa', 'advance', 'stated-part', part ? 'ordinary' : 'guard'],
      payment: tx(id, a, amount, postedAfter(a, p.random.int(5, 30)), sepa(a, text)),
      expect: part ? applied([a], { [a.id]: amount }) : person('suggested', [a]),
    })
  }
  // The share stated between the advance word and the invoice, and a number wrapped at an MT940 line end.
  {
    const a = p.pick(
      (i) => eur(i) && p.country(i) === 'FR' && new Decimal(i.amount).greaterThan(200) && unique(i),
    )
    const amount = money(new Decimal(a.amount).times('0.3'))
    const text = `ACOMPTE 30 % SUR FACTURE ${a.number}`
    const id = 'g2-acompte-share-stated'
    add({
      id,
      title: 'Acompte of a stated 30 % on the named invoice',
      why: `camt.053 AddtlNtryInf "VIR SEPA RECU /MOTIF ${text}" from the known IBAN: a part payment of the named invoice`,
      tags: ['camt', 'advance', 'stated-part', 'ordinary'],
      payment: tx(id, a, amount, postedAfter(a, p.random.int(5, 30)), {
        ...sepa(a, text),
        description: `VIR SEPA RECU /DE ${bankName(nameOf(a))} /MOTIF ${text}`,
      }),
      expect: applied([a], { [a.id]: amount }),
    })
  }
  {
    const a = p.pick(
      (i) => eur(i) && p.country(i) === 'DE' && /^INV-\d{4}-\d{5}$/.test(i.number) && unique(i),
    )
    const amount = money(new Decimal(a.amount).times('0.4'))
    const [head, tail] = [a.number.slice(0, 4), a.number.slice(4)]
    const id = 'g2-anzahlung-wrapped'
    const mt = svwz(a, `Anzahlung auf Rg. ${head}`).description.replace('?30', `?22${tail} 40 Prozent?30`)
    add({
      id,
      title: 'Anzahlung on the named invoice, its number wrapped at the end of ?21',
      why: `MT940 :86: ?21 "SVWZ+Anzahlung auf Rg. ${head}" ?22 "${tail} 40 Prozent" (27 characters a line) from the known IBAN: 40 % of the named invoice`,
      tags: ['mt940', 'advance', 'wrapped', 'stated-part', 'ordinary'],
      payment: tx(id, a, amount, postedAfter(a, p.random.int(5, 30)), { ...svwz(a, ''), description: mt }),
      expect: applied([a], { [a.id]: amount }),
    })
  }
}
