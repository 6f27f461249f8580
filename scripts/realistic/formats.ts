/**
 * Ordinary bank lines from format templates: each pays invoices it names whole (or by the structured reference the
 * invoice prints) at their open amounts, so each is applied: that is how it was built.
 */
import { Decimal } from 'decimal.js'
import {
  bankName,
  ccdAddenda,
  compactIban,
  ctx820,
  mt940,
  ref18,
  ustrd,
} from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'

type Kit = ReturnType<typeof caseKit>

/** Remittance wording by country: {n} number, {c} customer number, {d} issue date. */
const WORDING: Record<string, string[]> = {
  DE: [
    'Rechnung {n} vom {d}',
    'RE {n} KD-NR {c}',
    'Rg.-Nr. {n} Danke',
    'Zahlung Rechnung {n}',
    '{n}',
    'Rechnungsnummer {n} Kundennummer {c}',
  ],
  AT: ['Rechnung {n}', 'Zahlungsreferenz {n} Kd {c}', 'RE-NR {n}'],
  NL: ['Factuur {n}', 'FACTUURNR {n} KLANT {c}', 'betaling factuur {n}'],
  BE: ['Factuur {n}', 'Facture {n} client {c}'],
  FR: ['FACTURE {n}', 'REGLEMENT FACTURE {n} CLIENT {c}', 'FACT {n} DU {d}'],
  ES: ['FACTURA {n}', 'PAGO FRA. {n}', 'PAGO FACTURA {n} CLIENTE {c}'],
  IT: ['FATTURA N. {n}', 'SALDO FATTURA {n} DEL {d}', 'PAGAMENTO FT {n}'],
  FI: ['Lasku {n}', 'LASKU NRO {n}'],
  NO: ['Faktura {n}', 'Fakturanr {n} kundenr {c}'],
  GR: ['ΕΞΟΦΛΗΣΗ ΤΙΜΟΛΟΓΙΟΥ {n}'],
  BG: ['ПЛАЩАНЕ ПО ФАКТУРА {n}'],
}

export function formatCases(kit: Kit): void {
  const { p, book, add, applied, tx, nameOf, iban, hasAccount, sum, postedAfter } = kit
  const words = (invoice: BookInvoice) => {
    const template = p.random.pick(WORDING[p.country(invoice)] ?? ['INVOICE {n}'])
    return template
      .replace('{n}', invoice.number)
      .replace('{c}', book.customerNumbers[invoice.customerId ?? ''] ?? '')
      .replace('{d}', (invoice.issueDate ?? '').split('-').reverse().join('.'))
  }
  const sepa = (invoice: BookInvoice) => invoice.currency === 'EUR' && invoice.entityId !== 'ent_us'
  const more = (first: BookInvoice, count: number, date: string) => {
    const others = p
      .invoicesOf(first.customerId ?? '')
      .filter((other) => other.id !== first.id && (other.issueDate ?? '') <= date)
      .slice(0, count)
    return [first, ...others.map((other) => p.markUsed(other))]
  }

  for (let n = 1; n <= 45; n++) {
    const a = p.pick(sepa)
    const date = postedAfter(a, p.random.int(5, 50))
    const full = hasAccount(a) && p.random.chance(0.6)
    const text = words(a)
    const id = `sepa-ustrd-${n}`
    add({
      id,
      title: `SEPA credit transfer, remittance in ${p.country(a)} wording`,
      why: `camt.053 SEPA credit: RmtInf/Ustrd (≤ 140 characters) "${text}" naming the whole number; amount agrees${full ? '; debtor IBAN in full' : ''}`,
      tags: ['sepa', 'camt053', 'ordinary'],
      payment: tx(id, a, a.amount, date, {
        paymentReference: ustrd(`${text} ${p.random.chance(0.3) ? 'DANKE' : ''}`.trim()),
        description: p.random.pick([
          'SEPA CREDIT TRANSFER',
          'SEPA-GUTSCHRIFT',
          'GUTSCHRIFT UEBERWEISUNG',
          'VIREMENT SEPA RECU',
        ]),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: full ? iban(a) : null,
        customerReference: p.random.chance(0.5) ? 'NOTPROVIDED' : `E2E${p.random.digits(12)}`,
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 30; n++) {
    const a = p.pick((invoice) => Boolean(invoice.paymentReference))
    const id = `structured-${n}`
    const reference = a.paymentReference ?? ''
    const scheme = reference.startsWith('RF')
      ? 'ISO 11649 RF'
      : reference.startsWith('+++')
        ? 'Belgian OGM'
        : p.country(a) === 'FI'
          ? 'Finnish reference'
          : 'Norwegian KID'
    add({
      id,
      title: `${scheme} reference printed on the invoice`,
      why: `camt.053 RmtInf/Strd/CdtrRefInf/Ref = the ${scheme} of the invoice; amount agrees`,
      tags: ['structured', 'camt053', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(5, 40)), {
        paymentReference: reference,
        description: p.country(a) === 'NO' ? `Innbetaling KID ${reference}` : 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: hasAccount(a) ? iban(a) : null,
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 30; n++) {
    const a = p.pick((invoice) => sepa(invoice) && hasAccount(invoice))
    const id = `mt940-${n}`
    const prefix = p.random.pick(['', 'Zahlung ', 'Ihre Rechnung ', 'RE ', 'Rechnung Nr. ', 'Beleg '])
    add({
      id,
      title: 'MT940 :86: with the number in SVWZ+, wrapped at 27 characters',
      why: 'German MT940 :86: 166 SEPA-UEBERWEISUNG: ?20 EREF+, SVWZ+ text in ?2x lines of 27 characters (a number may break across), ?31 IBAN, ?32 name',
      tags: ['mt940', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(5, 40)), {
        description: mt940({
          gvc: p.random.pick(['166', '166', '051']),
          postingText: p.random.pick(['SEPA-UEBERWEISUNG', 'SEPA GUTSCHRIFT', 'GUTSCHRIFT']),
          eref: p.random.chance(0.5) ? 'NOTPROVIDED' : `${p.random.digits(10)}`,
          svwz: `${prefix}${a.number} ${p.random.pick(['', 'Danke', `Kd ${book.customerNumbers[a.customerId ?? '']}`, `v. ${a.issueDate}`])}`.trim(),
          bic: p.random.pick(['COBADEFFXXX', 'DEUTDEFFXXX', 'GENODEF1S04', 'BYLADEMMXXX']),
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 15; n++) {
    const a = p.pick((invoice) => invoice.entityId === 'ent_us')
    const id = `ach-ccd-${n}`
    add({
      id,
      title: 'ACH CCD+ with one RMR addenda',
      why: 'US ACH CCD+: ORIG CO NAME (16 characters), addenda RMR*IV*<invoice>*PI*<amount>\\',
      tags: ['ach', 'ccd', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(10, 45)), {
        paymentReference: ccdAddenda(a.number, a.amount),
        description: `ORIG CO NAME:${bankName(nameOf(a), 16)} CO ENTRY DESCR:${p.random.pick(['PAYMENT', 'PAYMENTS', 'AP PMT', 'VENDOR PAY'])} SEC:CCD TRACE#:0710000${p.random.digits(8)}`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 10; n++) {
    const a = p.pick(
      (invoice) => invoice.entityId === 'ent_us' && p.invoicesOf(invoice.customerId ?? '').length >= 3,
    )
    const date = '2026-03-27'
    const all = more(a, p.random.int(1, 5), date)
    const id = `ach-ctx-${n}`
    add({
      id,
      title: `ACH CTX 820 paying ${all.length} invoices`,
      why: 'ACH CTX with an X12 820: BPR total, TRN trace, N1*PR payer, one RMR*IV segment per invoice with paid and invoiced amounts',
      tags: ['ach', 'ctx', 'multi', 'ordinary'],
      payment: tx(id, a, sum(...all), date, {
        paymentReference: ctx820({
          payer: bankName(nameOf(a)),
          trace: p.random.digits(10),
          total: sum(...all),
          date: '20260327',
          lines: all.map((invoice) => ({
            number: invoice.number,
            paid: invoice.amount,
            invoiced: invoice.amount,
          })),
        }),
        description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: applied(all, Object.fromEntries(all.map((invoice) => [invoice.id, invoice.amount]))),
    })
  }
  for (let n = 1; n <= 5; n++) {
    const a = p.pick((invoice) => invoice.entityId === 'ent_us')
    const agent = p.random.pick(['BILL.COM', 'TIPALTI', 'MELIO PAYMENTS', 'AVIDXCHANGE'])
    const id = `ach-agent-${n}`
    add({
      id,
      title: `Paid through ${agent}, the invoice in the addenda`,
      why: `ACH CCD+ from the payment agent ${agent} on the customer's behalf: RMR*IV names the invoice at its amount`,
      tags: ['ach', 'agent', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(10, 40)), {
        paymentReference: ccdAddenda(a.number, a.amount),
        description: `${agent} CCD ${bankName(nameOf(a), 22)} ID:${p.random.digits(10)}`,
        counterpartyName: agent,
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 25; n++) {
    const a = p.pick((invoice) => invoice.entityId === 'ent_uk')
    const fps = n % 2 === 0
    const number = fps && p.random.chance(0.5) ? a.number.replace('-', '') : a.number
    const id = `${fps ? 'fps' : 'bacs'}-${n}`
    add({
      id,
      title: fps ? 'Faster Payments receipt, 18-character reference' : 'BACS credit, 18-character reference',
      why: fps
        ? 'UK Faster Payments: reference (18 characters) "<number> <name>" as the payer typed it; amount agrees'
        : 'UK BACS credit (BGC): 18-character reference, originator name cut to 18 characters',
      tags: [fps ? 'fps' : 'bacs', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(10, 45)), {
        paymentReference: ref18(`${p.random.pick(['', 'INV ', 'INV/'])}${number} ${bankName(nameOf(a))}`),
        description: fps ? 'FASTER PAYMENTS RECEIPT' : 'BACS CREDIT',
        counterpartyName: bankName(nameOf(a), 18),
        counterpartyAccountMasked: fps && hasAccount(a) ? iban(a) : null,
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 20; n++) {
    const usd = n <= 12
    const a = p.pick((invoice) =>
      usd ? invoice.entityId === 'ent_us' : sepa(invoice) && !['DE', 'AT'].includes(p.country(invoice)),
    )
    const id = `${usd ? (n % 3 === 0 ? 'chips' : 'fedwire') : 'mt103'}-${n}`
    const description = !usd
      ? `SWIFT MT103 :50K:/${compactIban(iban(a) || 'IT60X0542811101000000123456')} ${bankName(nameOf(a), 35)} :71A:SHA`
      : n % 3 === 0
        ? `CHIPS CREDIT ORG=${bankName(nameOf(a))} OGB=HSBC BANK USA SSN=${p.random.digits(7)} OBI=INV ${a.number}`
        : `FEDWIRE CREDIT VIA: JPMORGAN CHASE BANK/021000021 B/O: ${bankName(nameOf(a))} REF: NWC/AC-000000123456 OBI=INVOICE ${a.number} IMAD: 0320MMQFMP2N00${p.random.digits(4)}`
    add({
      id,
      title: usd
        ? 'US wire with the invoice in the originator-to-beneficiary information'
        : 'SWIFT MT103 with /INV/ in field 70',
      why: usd
        ? 'Fedwire/CHIPS credit as a US bank prints it: B/O or ORG, OBI naming the invoice'
        : 'MT103 :70: remittance "/INV/<number>/<date>", ordering customer in :50K:, charges SHA',
      tags: ['wire', usd ? 'fedwire' : 'mt103', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(10, 45)), {
        ...(usd ? {} : { paymentReference: `/INV/${a.number}/${(a.issueDate ?? '').replace(/-/g, '')}` }),
        description,
        counterpartyName: bankName(nameOf(a), 35),
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 12; n++) {
    const a = p.pick((invoice) => ['NO', 'FI', 'DE', 'NL'].includes(p.country(invoice)))
    const id = `camt-addtl-${n}`
    const text =
      p.country(a) === 'NO'
        ? `Overføring Melding: Faktura ${a.number} Fra: ${nameOf(a)}`
        : p.country(a) === 'FI'
          ? `TILISIIRTO ${bankName(nameOf(a), 35)} VIESTI: LASKU ${a.number}`
          : `Gutschrift ${bankName(nameOf(a), 35)} ${words(a)}`
    add({
      id,
      title: 'camt.053 with the booking text only in AddtlNtryInf',
      why: 'camt.053 entry without RmtInf: the bank put the whole booking text into AddtlNtryInf',
      tags: ['camt053', 'ordinary'],
      payment: tx(id, a, a.amount, postedAfter(a, p.random.int(5, 40)), {
        description: text,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a]),
    })
  }
  for (let n = 1; n <= 6; n++) {
    const a = p.pick(
      (invoice) =>
        sepa(invoice) &&
        hasAccount(invoice) &&
        new Decimal(invoice.amount).greaterThan(200) &&
        ['DE', 'FR', 'NL'].includes(p.country(invoice)),
    )
    const part = new Decimal(a.amount)
      .times(p.random.pick(['0.5', '0.25', '0.4']))
      .toDecimalPlaces(2, Decimal.ROUND_DOWN)
      .toFixed(2)
    const wording = {
      DE: `Teilzahlung ${a.number}`,
      FR: `ACOMPTE SUR FACTURE ${a.number}`,
      NL: `Deelbetaling factuur ${a.number}`,
    }[p.country(a)]
    const id = `partial-${n}`
    add({
      id,
      title: 'A stated part payment of a named invoice from the customer’s account',
      why: `SEPA Ustrd "${wording?.split(' ')[0]} … <number>": part of the named invoice, from the known IBAN`,
      tags: ['sepa', 'partial', 'ordinary'],
      payment: tx(id, a, part, postedAfter(a, p.random.int(5, 30)), {
        paymentReference: ustrd(wording ?? ''),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a], { [a.id]: part }),
    })
  }
}
