import { Decimal } from 'decimal.js'
import { bankName, ccdAddenda, ctx820, mt940, ref18, ustrd } from '../../test/support/bank-lines.js'
import { kit } from './kit.js'

const {
  add,
  applied,
  book,
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
  uk,
  unique,
  us,
} = kit

/** Ordinary lines a team sees every day, and the formats’ own traps (wrapped lines, cut references) (1 of 2). */
export function ordinaryCases1(): void {
  // ---- ordinary lines a team sees every day -------------------------------------------------------------------
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && unique(i))
    const date = postedAfter(a)
    add({
      id: 'ho-sepa-camt-plain',
      title: 'SEPA credit transfer naming the invoice and the customer number',
      why: 'camt.053 Ntry with RmtInf/Ustrd and the debtor IBAN in full; the number, the amount and the account agree',
      tags: ['sepa', 'camt053', 'ordinary'],
      payment: tx('ho-sepa-camt-plain', a, a.amount, date, {
        ...sepaFields(
          a,
          `RECHNUNG ${a.number} VOM ${a.issueDate} KUNDENNR ${book.customerNumbers[a.customerId ?? '']}`,
        ),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => /^RF/.test(i.paymentReference ?? '') && hasAccount(i))
    add({
      id: 'ho-sepa-rf-structured',
      title: 'SEPA structured creditor reference (RF) of the invoice',
      why: 'camt.053 RmtInf/Strd/CdtrRefInf with an ISO 11649 RF reference printed on the invoice; amount agrees',
      tags: ['sepa', 'rf', 'structured', 'ordinary'],
      payment: tx('ho-sepa-rf-structured', a, a.amount, postedAfter(a), {
        ...sepaFields(a, a.paymentReference ?? ''),
        description: 'SEPA-GUTSCHRIFT',
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('BE')(i) && hasAccount(i))
    add({
      id: 'ho-be-ogm',
      title: 'Belgian structured communication (OGM) of the invoice',
      why: 'Belgian bank statement: VIREMENT EUROPEEN with the +++ / / +++ communication the invoice prints',
      tags: ['be', 'ogm', 'structured', 'ordinary'],
      payment: tx('ho-be-ogm', a, a.amount, postedAfter(a), {
        paymentReference: a.paymentReference,
        description: 'VIREMENT EUROPEEN RECU',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('BE')(i))
    const ogm = (a.paymentReference ?? '').replace(/\+/g, '')
    add({
      id: 'ho-be-ogm-typed',
      title: 'OGM typed into the free communication without the plus signs',
      why: 'Belgian Ustrd "MEDEDELING" where the payer typed the structured communication as free text; amount agrees',
      tags: ['be', 'ogm', 'ordinary'],
      payment: tx('ho-be-ogm-typed', a, a.amount, postedAfter(a), {
        paymentReference: ustrd(`MEDEDELING ${ogm} FACTUUR ${a.number}`),
        description: 'EUROPESE OVERSCHRIJVING',
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('FI')(i) && hasAccount(i))
    const reference = (a.paymentReference ?? '').replace(/(\d{5})(?=\d)/g, '$1 ')
    add({
      id: 'ho-fi-viite',
      title: 'Finnish reference (viitenumero) printed in groups of five',
      why: 'Finnish account statement VIITESIIRTO with the invoice’s reference in groups of five digits',
      tags: ['fi', 'structured', 'ordinary'],
      payment: tx('ho-fi-viite', a, a.amount, postedAfter(a), {
        paymentReference: reference,
        description: 'VIITESIIRTO',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('NO')(i) && hasAccount(i))
    add({
      id: 'ho-no-kid',
      title: 'Norwegian KID of the invoice',
      why: 'Norwegian camt.053 Innbetaling with the KID in CdtrRefInf and AddtlNtryInf "Innbetaling KID"',
      tags: ['no', 'kid', 'structured', 'ordinary'],
      payment: tx('ho-no-kid', a, a.amount, postedAfter(a), {
        paymentReference: a.paymentReference,
        description: `Innbetaling KID ${a.paymentReference} Fra: ${nameOf(a)}`,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => from('DE')(i) && hasAccount(i))
    const text = mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: 'NOTPROVIDED',
      svwz: `${a.number} Danke`,
      bic: 'COBADEFFXXX',
      iban: iban(a),
      name: nameOf(a),
    })
    add({
      id: 'ho-mt940-svwz',
      title: 'MT940 :86: with the invoice number in SVWZ+',
      why: 'German MT940 :86: 166 SEPA-UEBERWEISUNG with ?20 EREF+, ?21 SVWZ+, ?30 BIC, ?31 IBAN, ?32 name',
      tags: ['mt940', 'ordinary'],
      payment: tx('ho-mt940-svwz', a, a.amount, postedAfter(a), {
        description: text,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    // SVWZ+ and 14 characters put the number's last three digits on the next ?2x line.
    const a = p.pick((i) => from('DE')(i) && hasAccount(i) && /^INV-2025-0[1-9]/.test(i.number))
    const svwz = `Rechnung Nr. ${a.number} Kd ${book.customerNumbers[a.customerId ?? '']}`
    const text = mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      svwz,
      bic: 'DEUTDEFFXXX',
      iban: iban(a),
      name: nameOf(a),
    })
    if (text.includes(a.number)) throw new Error('the number should be broken by the ?21 line')
    add({
      id: 'ho-mt940-wrap-break',
      title: 'MT940 ?20/?21 line boundary breaks the invoice number',
      why: 'MT940 :86: ?20–?29 lines of 27 characters: "SVWZ+Rechnung Nr. INV-2025" ?21 "-0…" as the bank wraps it',
      tags: ['mt940', 'wrap'],
      payment: tx('ho-mt940-wrap-break', a, a.amount, postedAfter(a), {
        description: text,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    // The line ends after "INV-2026-0012": a number of its own (INV-2026-00012 is another customer's).
    const a = p.pick(
      (i) =>
        from('DE')(i) &&
        hasAccount(i) &&
        /^INV-2026-0012\d$/.test(i.number) &&
        p.byNumber('INV-2026-00012')?.customerId !== i.customerId,
    )
    const text = mt940({
      gvc: '166',
      postingText: 'SEPA-UEBERWEISUNG',
      eref: `${book.customerNumbers[a.customerId ?? '']}-0326`,
      svwz: `Zahlung: ${a.number} v. ${a.issueDate}`,
      bic: 'GENODEF1S04',
      iban: iban(a),
      name: nameOf(a),
    })
    if (!text.includes('?21SVWZ+Zahlung: INV-2026-0012?22'))
      throw new Error('the ?21 line should end in INV-2026-0012')
    add({
      id: 'ho-mt940-wrap-fragment',
      title: 'MT940 wrap leaves a fragment that is another invoice number',
      why: 'MT940 :86: ?21/?22 boundary inside the number; the first part alone reads as another customer’s invoice',
      tags: ['mt940', 'wrap', 'leading-zeros'],
      payment: tx('ho-mt940-wrap-fragment', a, a.amount, postedAfter(a), {
        description: text,
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => us(i) && unique(i))
    const company = bankName(nameOf(a), 16)
    add({
      id: 'ho-ach-ccd',
      title: 'ACH CCD+ with one RMR addenda',
      why: 'US BAI2/ACH detail: ORIG CO NAME (16 chars), SEC CCD, addenda RMR*IV*<invoice>*PI*<amount>\\',
      tags: ['ach', 'ccd', 'ordinary'],
      payment: tx('ho-ach-ccd', a, a.amount, postedAfter(a, 30), {
        paymentReference: ccdAddenda(a.number, a.amount),
        description: `ORIG CO NAME:${company} ORIG ID:1${p.random.digits(9)} DESC DATE:260312 CO ENTRY DESCR:PAYMENTS SEC:CCD TRACE#:0710000${p.random.digits(8)} EED:260312 IND ID:${p.random.digits(12)} IND NAME:NORTHWIND COMMERCE`,
        counterpartyName: company,
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => us(i))
    const others = p
      .invoicesOf(a.customerId ?? '')
      .filter((i) => i.id !== a.id)
      .slice(0, 2)
    for (const other of others) p.markUsed(other)
    const all = [a, ...others]
    add({
      id: 'ho-ach-ctx-three',
      title: 'ACH CTX 820 paying three invoices, each in an RMR segment',
      why: 'ACH CTX with an X12 820: BPR total, TRN trace, N1*PR payer, one RMR*IV per invoice with paid and invoiced amounts',
      tags: ['ach', 'ctx', 'multi', 'ordinary'],
      payment: tx('ho-ach-ctx-three', a, sum(...all), '2026-03-27', {
        paymentReference: ctx820({
          payer: bankName(nameOf(a)),
          trace: '0000412345',
          total: sum(...all),
          date: '20260327',
          lines: all.map((i) => ({ number: i.number, paid: i.amount, invoiced: i.amount })),
        }),
        description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: applied(all, Object.fromEntries(all.map((i) => [i.id, i.amount]))),
    })
  }
  {
    const a = p.pick((i) => us(i) && new Decimal(i.amount).greaterThan(400))
    const others = p
      .invoicesOf(a.customerId ?? '')
      .filter((i) => i.id !== a.id && p.markUsed(i))
      .slice(0, 2)
    const short = new Decimal(a.amount).minus(100).toFixed(2)
    const total = new Decimal(short).plus(sum(...others)).toFixed(2)
    add({
      id: 'ho-ach-ctx-adjustment',
      title: 'ACH CTX with a disputed deduction (ADX) on one of three invoices',
      why: 'X12 820 RMR*IV with paid < invoiced and ADX*-100.00*01 (pricing dispute): the remittance says what each invoice gets',
      tags: ['ach', 'ctx', 'multi', 'amounts'],
      payment: tx('ho-ach-ctx-adjustment', a, total, '2026-03-30', {
        paymentReference: ctx820({
          payer: bankName(nameOf(a)),
          trace: '0000412399',
          total,
          date: '20260330',
          lines: [
            {
              number: a.number,
              paid: short,
              invoiced: a.amount,
              adjustment: { amount: '-100.00', code: '01' },
            },
            ...others.map((i) => ({ number: i.number, paid: i.amount, invoiced: i.amount })),
          ],
        }),
        description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a), 16),
      }),
      expect: applied([a, ...others], {
        [a.id]: short,
        ...Object.fromEntries(others.map((i) => [i.id, i.amount])),
      }),
    })
  }
  {
    const a = p.pick((i) => uk(i))
    add({
      id: 'ho-bacs-ref',
      title: 'BACS credit with the invoice number as its 18-character reference',
      why: 'UK BACS credit (BGC): 18-character reference, originator name as BACS carries it',
      tags: ['bacs', 'ordinary'],
      payment: tx('ho-bacs-ref', a, a.amount, postedAfter(a, 35), {
        paymentReference: ref18(`${a.number} ${bankName(nameOf(a))}`),
        description: 'BACS CREDIT',
        counterpartyName: bankName(nameOf(a), 18),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => uk(i) && hasAccount(i))
    add({
      id: 'ho-fps-nohyphen',
      title: 'Faster Payments reference without the hyphen',
      why: 'UK Faster Payments receipt: reference "SI04512 PAYMENT" (18 characters), payer name and sort code/account',
      tags: ['fps', 'ordinary'],
      payment: tx('ho-fps-nohyphen', a, a.amount, postedAfter(a, 20), {
        paymentReference: ref18(`${a.number.replace('-', '')} PAYMENT`),
        description: `FASTER PAYMENTS RECEIPT REF ${a.number.replace('-', '')} PAYMENT FROM ${bankName(nameOf(a), 18)}`,
        counterpartyName: bankName(nameOf(a), 18),
        counterpartyAccountMasked: iban(a),
      }),
      expect: applied([a]),
    })
  }
  {
    const a = p.pick((i) => uk(i) && p.invoicesOf(i.customerId ?? '').length >= 3)
    const b = p.pick((i) => i.customerId === a.customerId && i.id !== a.id)
    const reference = `INV ${a.number} ${b.number}`
    add({
      id: 'ho-fps-truncated-two',
      title: 'Faster Payments reference cut at 18 characters through the second invoice number',
      why: 'UK Faster Payments: the 18-character reference "INV SI-04512 SI-04" cuts the second number; the sum pays both',
      tags: ['fps', 'multi', 'truncated'],
      payment: tx('ho-fps-truncated-two', a, sum(a, b), '2026-03-26', {
        paymentReference: ref18(reference),
        description: 'FASTER PAYMENTS RECEIPT',
        counterpartyName: bankName(nameOf(a), 18),
      }),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const a = p.pick((i) => us(i))
    add({
      id: 'ho-fedwire-obi',
      title: 'Fedwire credit with the invoice in the originator-to-beneficiary information',
      why: 'US Fedwire credit as a bank prints it: VIA, B/O, REF, OBI=INVOICE <number>, IMAD',
      tags: ['wire', 'fedwire', 'ordinary'],
      payment: tx('ho-fedwire-obi', a, a.amount, postedAfter(a, 28), {
        description: `FEDWIRE CREDIT VIA: WELLS FARGO BANK/121000248 B/O: ${bankName(nameOf(a))} COLUMBUS OH 43215 REF: CHASE NYC/CTR/BNF=NORTHWIND COMMERCE INC/AC-000000123456 OBI=INVOICE ${a.number} IMAD: 0312MMQFMP2N00${p.random.digits(4)}`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a]),
    })
  }
}
