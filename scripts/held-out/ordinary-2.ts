import { Decimal } from 'decimal.js'
import { addDays, bankName, ccdAddenda, compactIban, ustrd } from '../../test/support/bank-lines.js'
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
} = kit

/** Ordinary lines a team sees every day, and the formats’ own traps (wrapped lines, cut references) (2 of 2). */
export function ordinaryCases2(): void {
  {
    const a = p.pick((i) => from('GB')(i) === false && eu(i) && from('IT')(i))
    add({
      id: 'ho-mt103-inv',
      title: 'SWIFT MT103 with /INV/ in field 70',
      why: 'MT103 :70: remittance with the /INV/<number>/<date> code word, ordering customer in :50K:',
      tags: ['swift', 'mt103', 'ordinary'],
      payment: tx('ho-mt103-inv', a, a.amount, postedAfter(a, 30), {
        paymentReference: `/INV/${a.number}/${(a.issueDate ?? '').replace(/-/g, '')}`,
        description: `SWIFT CREDIT :50K:/${compactIban(iban(a) || 'IT60X0542811101000000123456')} ${bankName(nameOf(a), 35)} :71A:SHA`,
        counterpartyName: bankName(nameOf(a), 35),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('NL')(i) && p.invoicesOf(i.customerId ?? '').length >= 2)
    const b = p.pick((i) => i.customerId === a.customerId)
    add({
      id: 'ho-sepa-two-invoices',
      title: 'SEPA paying two invoices named in the remittance',
      why: 'Dutch camt.053 Ustrd "FACTUUR <a> EN <b>"; the amount is their sum',
      tags: ['sepa', 'multi', 'ordinary'],
      payment: tx('ho-sepa-two-invoices', a, sum(a, b), '2026-03-25', {
        ...sepaFields(
          a,
          `FACTUUR ${a.number} EN ${b.number} KLANTNR ${book.customerNumbers[a.customerId ?? '']}`,
        ),
        description: 'SEPA OVERBOEKING',
      }),
      expect: applied([a, b]),
    })
  }
  {
    const a = p.pick((i) => from('AT')(i))
    add({
      id: 'ho-sepa-lowercase-spaces',
      title: 'SEPA remittance with the number in lower case and spaces',
      why: 'Austrian online banking Zahlungsreferenz typed by hand: "inv 2026 00345 danke"',
      tags: ['sepa', 'ordinary'],
      payment: tx('ho-sepa-lowercase-spaces', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `${a.number.toLowerCase().replace(/-/g, ' ')} danke`),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i))
    add({
      id: 'ho-camt-addtl-only',
      title: 'camt.053 with the text only in AddtlNtryInf',
      why: 'camt.053 where the bank put the whole booking text into AddtlNtryInf and sent no RmtInf',
      tags: ['camt053', 'ordinary'],
      payment: tx('ho-camt-addtl-only', a, a.amount, postedAfter(a), {
        description: `SEPA Gutschrift ${bankName(nameOf(a), 35)} Rechnung ${a.number} Kunde ${book.customerNumbers[a.customerId ?? '']}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick(
      (i) =>
        i.earlyPaymentDiscount != null &&
        new Decimal(i.amount).times(2).mod(1).isZero() &&
        (i.earlyPaymentDiscount.until ?? '') <= '2026-03-31',
    )
    const discount = new Decimal(a.amount).times('0.02').toFixed(2)
    const paid = new Decimal(a.amount).minus(discount).toFixed(2)
    add({
      id: 'ho-skonto-in-time',
      title: 'Paid within the discount period, 2 % Skonto taken',
      why: 'German SEPA Ustrd "RG <number> ABZGL. 2% SKONTO" paid before the invoice’s discount date',
      tags: ['sepa', 'discount', 'ordinary'],
      payment: tx('ho-skonto-in-time', a, paid, addDays(a.issueDate ?? '', 8), {
        ...sepaFields(a, `RG ${a.number} ABZGL. 2% SKONTO ${discount.replace('.', ',')} EUR`),
      }),
      expect: {
        ...applied([a], { [a.id]: paid }),
        writeOffs: [{ invoiceId: a.id, amount: discount, reason: 'discount' }],
      },
    })
  }
  {
    const a = p.pick(
      (i) => from('DE')(i) && hasAccount(i) && new Decimal(i.amount).times(100).mod(2).isZero(),
    )
    const half = new Decimal(a.amount).div(2).toFixed(2)
    add({
      id: 'ho-partial-stated',
      title: 'First of two instalments, the invoice named',
      why: 'German SEPA Ustrd "<number> 1. RATE VON 2"; half the invoice from the customer’s account',
      tags: ['sepa', 'partial', 'ordinary'],
      payment: tx('ho-partial-stated', a, half, postedAfter(a), {
        ...sepaFields(a, `${a.number} 1. RATE VON 2`),
      }),
      expect: applied([a], { [a.id]: half }),
    })
  }
  {
    const a = p.pick(
      (i) => from('DE')(i) && hasAccount(i) && unique(i) && p.invoicesOf(i.customerId ?? '').length > 3,
    )
    add({
      id: 'ho-payer-unique-amount',
      title: 'Known account, no number, the only open invoice of that amount',
      why: 'camt.053 SEPA credit from the customer’s own IBAN with Ustrd "ZAHLUNG OFFENE POSTEN"; one invoice has the amount',
      tags: ['sepa', 'payer', 'ordinary'],
      payment: tx('ho-payer-unique-amount', a, a.amount, postedAfter(a), {
        ...sepaFields(a, 'ZAHLUNG OFFENE POSTEN'),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && /^INV-2025-00[1-9]\d\d$/.test(i.number))
    const short = a.number.replace(/-00/, '-')
    add({
      id: 'ho-leading-zeros-dropped',
      title: 'Number written without its leading zeros',
      why: 'SEPA Ustrd typed by hand "Rechnung INV-2025-412": the payer dropped the zero padding; account and amount agree',
      tags: ['sepa', 'leading-zeros', 'ordinary'],
      payment: tx('ho-leading-zeros-dropped', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `Rechnung ${short}`),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => us(i))
    add({
      id: 'ho-agent-billcom',
      title: 'Paid through Bill.com, the invoice in the addenda',
      why: 'ACH CCD from the payment agent BILL.COM on behalf of the customer: RMR*IV addenda names the invoice',
      tags: ['ach', 'agent', 'ordinary'],
      payment: tx('ho-agent-billcom', a, a.amount, postedAfter(a, 25), {
        paymentReference: ccdAddenda(a.number, a.amount),
        description: `BILL.COM PAYABLES CCD ${bankName(nameOf(a), 22)} ID:015${p.random.digits(8)} INV ${a.number}`,
        counterpartyName: 'BILL.COM',
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0025')
    add({
      id: 'ho-cyrillic-number',
      title: 'Bulgarian payer in Cyrillic naming the invoice',
      why: 'SEPA credit from Bulgaria: debtor name and Ustrd in Cyrillic ("ПЛАЩАНЕ ПО ФАКТУРА <number>")',
      tags: ['sepa', 'names', 'cyrillic', 'ordinary'],
      payment: tx('ho-cyrillic-number', a, a.amount, postedAfter(a), {
        paymentReference: ustrd(`ПЛАЩАНЕ ПО ФАКТУРА ${a.number}`),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'ИВАНОВ ТРЕЙДИНГ ЕООД',
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0024')
    add({
      id: 'ho-greek-number',
      title: 'Greek payer name, invoice named',
      why: 'SEPA credit from Greece: debtor name in Greek, Ustrd "ΕΞΟΦΛΗΣΗ ΤΙΜΟΛΟΓΙΟΥ <number>" from a new account',
      tags: ['sepa', 'names', 'greek', 'ordinary'],
      payment: tx('ho-greek-number', a, a.amount, postedAfter(a), {
        paymentReference: ustrd(`ΕΞΟΦΛΗΣΗ ΤΙΜΟΛΟΓΙΟΥ ${a.number}`),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'ΠΑΠΑΔΟΠΟΥΛΟΣ ΤΡΕΪΝΤΙΝΓΚ Α.Ε.',
        counterpartyAccountMasked: 'GR16 0110 1250 0000 0001 2300 695',
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => i.customerId === 'cus_0025' && unique(i))
    add({
      id: 'ho-cyrillic-name-only',
      title: 'Cyrillic payer name, no reference, from an unknown account',
      why: 'SEPA credit from Bulgaria with Ustrd "ПЛАЩАНЕ" only; the name (transliterated) is the customer’s, the account new',
      tags: ['sepa', 'names', 'cyrillic'],
      payment: tx('ho-cyrillic-name-only', a, a.amount, postedAfter(a), {
        paymentReference: 'ПЛАЩАНЕ',
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: 'ИВАНОВ ТРЕЙДИНГ ЕООД',
        counterpartyAccountMasked: 'BG80 BNBG 9661 1020 3456 78',
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick(
      (i) => /^RF/.test(i.paymentReference ?? '') && p.invoicesOf(i.customerId ?? '').length >= 2,
    )
    const b = p.pick((i) => i.customerId === a.customerId && !i.paymentReference)
    add({
      id: 'ho-rf-plus-number',
      title: 'RF reference in the structured field, a second invoice number in the text',
      why: 'camt.053 with Strd/CdtrRefInf = RF of one invoice and AddtlRmtInf naming a second; the amount is their sum',
      tags: ['sepa', 'rf', 'multi', 'fields'],
      payment: tx('ho-rf-plus-number', a, sum(a, b), '2026-03-30', {
        paymentReference: a.paymentReference,
        description: `SEPA-GUTSCHRIFT ZUSAETZLICH ${b.number}`,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a) || null,
      }),
      expect: applied([a, b]),
    })
  }
  {
    const a = p.pick((i) => /^RF/.test(i.paymentReference ?? ''))
    const c = p.pick((i) => eu(i) && i.customerId !== a.customerId && i.amount !== a.amount)
    add({
      id: 'ho-rf-conflict',
      title: 'RF of one invoice, the text names another customer’s invoice',
      why: 'camt.053 with Strd RF reference and Ustrd "Rechnung <other customer’s number>": the fields disagree',
      tags: ['sepa', 'rf', 'conflict', 'fields'],
      payment: tx('ho-rf-conflict', a, a.amount, postedAfter(a), {
        paymentReference: a.paymentReference,
        description: `Rechnung ${c.number}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: person('suggested', [a]),
    })
  }
  {
    const a = p.pick((i) => from('NO')(i) && hasAccount(i))
    add({
      id: 'ho-nordic-faktura',
      title: 'Norwegian transfer with "Faktura <number>" and no KID',
      why: 'Norwegian camt.053 AddtlNtryInf "Overføring" with Melding "Faktura 2500412" instead of the KID',
      tags: ['no', 'ordinary'],
      payment: tx('ho-nordic-faktura', a, a.amount, postedAfter(a), {
        paymentReference: `Faktura ${a.number}`,
        description: `Overføring Melding: Faktura ${a.number}`,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('FI')(i) && hasAccount(i))
    add({
      id: 'ho-digits-nr-verified',
      title: '"Nr." and the digits-only number, from the customer’s account, exact amount',
      why: 'Finnish SEPA credit with Ustrd "Nr. 2500412" from the known IBAN: number, payer and amount agree',
      tags: ['sepa', 'number-word', 'ordinary'],
      payment: tx('ho-digits-nr-verified', a, a.amount, postedAfter(a), {
        ...sepaFields(a, `Nr. ${a.number}`),
      }),
      expect: applied([a]),
    })
  }
}
