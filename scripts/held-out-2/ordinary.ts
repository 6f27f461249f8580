import { Decimal } from 'decimal.js'
import { bankName, mt940, ref18 } from '../../test/support/bank-lines.js'
import { kit } from './kit.js'

const { add, after, applied, book, from, hasAccount, iban, nameOf, p, sepaFields, tx, uk, unique, us } = kit

/** Ordinary lines around the traps, in the same formats. */
export function ordinaryCases(): void {
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    add({
      id: 'h2-sepa-plain',
      title: 'SEPA credit naming the invoice, its amount, from the customer’s IBAN',
      why: 'SEPA credit transfer, camt.053 RmtInf/Ustrd "RECHNUNG <number> KD-NR <customer number> DANKE"',
      tags: ['sepa', 'camt053', 'ordinary'],
      payment: tx('h2-sepa-plain', a, a.amount, after([a]), {
        ...sepaFields(a, `RECHNUNG ${a.number} KD-NR ${book.customerNumbers[a.customerId ?? '']} DANKE`),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i))
    add({
      id: 'h2-mt940-plain',
      title: 'MT940 :86: with "Rechnung <number>" in SVWZ+',
      why: 'German MT940 :86: 166 SEPA-UEBERWEISUNG, ?20 EREF+, ?21 SVWZ+, ?30 BIC, ?31 IBAN, ?32 name',
      tags: ['mt940', 'ordinary'],
      payment: tx('h2-mt940-plain', a, a.amount, after([a]), {
        description: mt940({
          gvc: '166',
          postingText: 'SEPA-UEBERWEISUNG',
          eref: `E2E-${p.random.digits(10)}`,
          svwz: `Rechnung ${a.number}`,
          bic: 'GENODED1KDB',
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
    const a = p.pick((i) => /^RF/.test(i.paymentReference ?? '') && hasAccount(i))
    add({
      id: 'h2-camt054-strd-rf',
      title: 'camt.054 credit notification with the RF reference in Strd',
      why: 'camt.054 NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref with the invoice’s ISO 11649 RF reference; AddtlNtryInf "SEPA-GUTSCHRIFT"',
      tags: ['camt054', 'rf', 'structured', 'ordinary'],
      payment: tx('h2-camt054-strd-rf', a, a.amount, after([a]), {
        paymentReference: a.paymentReference,
        description: 'SEPA-GUTSCHRIFT',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => uk(i) && hasAccount(i) && unique(i))
    add({
      id: 'h2-bacs-plain',
      title: 'BACS credit with the invoice number in the 18-character reference',
      why: 'UK BACS Direct Credit, 18-character reference "<number> NWC" from the customer’s sort code and account',
      tags: ['bacs', 'uk', 'ordinary'],
      payment: tx('h2-bacs-plain', a, a.amount, after([a]), {
        paymentReference: ref18(`${a.number} NWC`),
        description: `BACS CREDIT ${bankName(nameOf(a), 18)}`,
        counterpartyName: bankName(nameOf(a), 18),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => uk(i) && hasAccount(i))
    add({
      id: 'h2-fps-plain',
      title: 'Faster Payment with "INV" and the number in the reference',
      why: 'UK Faster Payments credit, 18-character reference "INV <number>", from the customer’s account',
      tags: ['fps', 'uk', 'ordinary'],
      payment: tx('h2-fps-plain', a, a.amount, after([a]), {
        paymentReference: ref18(`INV ${a.number}`),
        description: `FASTER PAYMENTS RECEIPT FROM ${bankName(nameOf(a), 18)}`,
        counterpartyName: bankName(nameOf(a), 18),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => us(i) && unique(i))
    add({
      id: 'h2-ccd-plain',
      title: 'ACH CCD+ with one RMR paying one invoice in full',
      why: 'ACH CCD+ addenda "RMR*IV*<number>*PI*<amount>\\" from the customer',
      tags: ['ach', 'ccd', 'ordinary'],
      payment: tx('h2-ccd-plain', a, a.amount, after([a]), {
        paymentReference: `RMR*IV*${a.number}*PI*${a.amount}\\`,
        description: `ACH CREDIT CCD ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('NL')(i) && hasAccount(i))
    add({
      id: 'h2-sepa-nl-plain',
      title: 'Dutch SEPA credit "FACTUUR <number>"',
      why: 'SEPA credit transfer, camt.053 Ustrd "BETALING FACTUUR <number> KLANTNR <n>" from the customer’s IBAN',
      tags: ['sepa', 'nl', 'ordinary'],
      payment: tx('h2-sepa-nl-plain', a, a.amount, after([a]), {
        ...sepaFields(a, `BETALING FACTUUR ${a.number} KLANTNR ${book.customerNumbers[a.customerId ?? '']}`),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        unique(i) &&
        new Decimal(i.amount).times(40).div(100).decimalPlaces() <= 2,
    )
    const paid = new Decimal(a.amount).times(40).div(100).toFixed(2)
    add({
      id: 'h2-sepa-teilzahlung-40',
      title: '"Teilzahlung" of 40 % of an invoice from the customer’s IBAN',
      why: 'SEPA credit transfer, camt.053 Ustrd "TEILZAHLUNG RECHNUNG <number>" for 40 % of it',
      tags: ['sepa', 'partial', 'ordinary'],
      payment: tx('h2-sepa-teilzahlung-40', a, paid, after([a]), {
        ...sepaFields(a, `TEILZAHLUNG RECHNUNG ${a.number}`),
      }),
      expect: applied([a], { [a.id]: paid }),
    })
  }
}
