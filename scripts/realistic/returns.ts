/**
 * Outflows after an inflow that paid an invoice: real returns (SEPA direct-debit returns quoting the end-to-end id
 * and a reason code, ACH returns quoting the trace, BACS ARUDD, returns debited with their fee) and outflows that
 * are no return (supplier payments whose invoice number is ours too, refunds for goods sent back, credit refunds).
 */
import { Decimal } from 'decimal.js'
import { bankName, mt940 } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'

type Kit = ReturnType<typeof caseKit>

const SEPA_CODES = [
  ['AM04', 'DECKUNG UNZUREICHEND'],
  ['MD06', 'RUECKGABE AUF WUNSCH DES ZAHLERS'],
  ['AC04', 'KONTO ERLOSCHEN'],
  ['MS02', 'WIDERSPRUCH DURCH ZAHLER'],
  ['MD01', 'KEIN MANDAT'],
  ['AC06', 'KONTO GESPERRT'],
] as const

export function returnCases(kit: Kit): void {
  const { p, book, add, tx, nameOf, iban, hasAccount } = kit
  const collection = (id: string, invoice: Parameters<typeof nameOf>[0], date: string) =>
    tx(id, invoice, invoice.amount, date, {
      paymentReference: invoice.number,
      customerReference: `NWC-DD-${p.random.digits(10)}`,
      description: `SEPA-LASTSCHRIFT EINZUG MREF MNDT-${book.customerNumbers[invoice.customerId ?? '']}-01`,
      counterpartyName: bankName(nameOf(invoice)),
      counterpartyAccountMasked: iban(invoice),
    })
  const early = (i: Parameters<typeof nameOf>[0]) => (i.issueDate ?? '') < '2026-03-01'

  SEPA_CODES.forEach(([code, words], at) => {
    const a = p.pick((i) => p.country(i) === 'DE' && hasAccount(i) && early(i))
    const inflow = collection(`sepa-dd-${at + 1}-collection`, a, '2026-03-05')
    const fee = at % 3 === 2 ? '3.00' : null
    const id = `sepa-dd-return-${at + 1}`
    add({
      id,
      title: `SEPA direct-debit return ${code}${fee ? ' debited with its fee' : ''}, quoting the end-to-end id`,
      why: `MT940 :86: 109 RUECKLASTSCHRIFT: ?20 EREF+<end-to-end id of the collection>, MREF+, SVWZ+ ${code}${fee ? ', the return fee in the same debit' : ''}`,
      tags: ['mt940', 'return', 'dd', ...(fee ? ['fee'] : [])],
      prior: [inflow],
      payment: tx(id, a, `-${new Decimal(a.amount).plus(fee ?? 0).toFixed(2)}`, '2026-03-11', {
        description: mt940({
          gvc: '109',
          postingText: 'RUECKLASTSCHRIFT',
          eref: inflow.customerReference ?? '',
          mref: `MNDT-${book.customerNumbers[a.customerId ?? '']}-01`,
          svwz: `${code} ${words}${fee ? ` ENTGELT ${fee.replace('.', ',')} EUR` : ''}`,
          bic: 'COBADEFFXXX',
          iban: iban(a),
          name: nameOf(a),
        }),
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: inflow.id } },
    })
  })
  for (const [at, code] of ['R01', 'R02', 'R03', 'R08'].entries()) {
    const a = p.pick((i) => i.entityId === 'ent_us' && early(i))
    const trace = `0210000${p.random.digits(8)}`
    const inflow = tx(`ach-return-${at + 1}-debit`, a, a.amount, '2026-03-06', {
      paymentReference: `RMR*IV*${a.number}*PI*${a.amount}\\`,
      description: `ACH DEBIT COLLECTION ${bankName(nameOf(a), 22)} SEC:CCD TRACE#:${trace}`,
      customerReference: trace,
      counterpartyName: bankName(nameOf(a), 22),
    })
    const id = `ach-return-${at + 1}`
    add({
      id,
      title: `ACH return ${code} of our debit, quoting its trace number`,
      why: `US ACH return entry: "RETURN ${code}" with the original entry's trace number in the addenda (NACHA return addenda type 99)`,
      tags: ['ach', 'return'],
      prior: [inflow],
      payment: tx(id, a, `-${a.amount}`, '2026-03-10', {
        description: `ACH RETURN ${code} ORIG TRACE ${trace} ${bankName(nameOf(a), 22)}`,
        paymentReference: `799${code}${trace}`,
        counterpartyName: bankName(nameOf(a), 22),
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: inflow.id } },
    })
  }
  for (let n = 1; n <= 3; n++) {
    const a = p.pick((i) => i.entityId === 'ent_uk' && early(i))
    const ddi = `NWCDD${p.random.digits(6)}`
    const inflow = tx(`arudd-${n}-collection`, a, a.amount, '2026-03-04', {
      paymentReference: a.number,
      customerReference: ddi,
      description: 'BACS DIRECT DEBIT COLLECTION',
      counterpartyName: bankName(nameOf(a), 18),
    })
    const id = `bacs-arudd-${n}`
    add({
      id,
      title: 'BACS ARUDD unpaid direct debit quoting only the DDI reference',
      why: `UK BACS ARUDD return, reason ${['0 REFER TO PAYER', '1 INSTRUCTION CANCELLED', 'B ACCOUNT CLOSED'][n - 1]}, reference = the DDI only`,
      tags: ['bacs', 'return', 'dd'],
      prior: [inflow],
      payment: tx(id, a, `-${a.amount}`, '2026-03-09', {
        paymentReference: ddi,
        description: 'BACS ARUDD UNPAID DIRECT DEBIT',
      }),
      expect: { outcome: 'returned', invoiceIds: [a.id], returns: { inflowId: inflow.id } },
    })
  }
  for (let n = 1; n <= 4; n++) {
    const a = p.pick((i) => i.currency === 'EUR' && i.entityId !== 'ent_us' && early(i))
    const inflow = tx(`supplier-${n}-paid`, a, a.amount, '2026-03-02', {
      paymentReference: `INVOICE ${a.number}`,
      description: 'SEPA CREDIT TRANSFER',
      counterpartyName: bankName(nameOf(a)),
      counterpartyAccountMasked: hasAccount(a) ? iban(a) : null,
    })
    const supplier = p.random.pick([
      'OFFICE PARTNER GMBH',
      'LOGISTIK EXPRESS AG',
      'CLOUDHOST B.V.',
      'PAPIER & CO SARL',
    ])
    const id = `supplier-payment-${n}`
    add({
      id,
      title: 'A supplier payment quoting the supplier’s invoice number, which is one of ours too',
      why: `SEPA debit to the supplier ${supplier}, Ustrd "IHRE RECHNUNG ${a.number}": no return wording or code, another counterparty`,
      tags: ['return', 'supplier', 'guard'],
      prior: [inflow],
      payment: tx(
        id,
        a,
        `-${n % 2 === 0 ? a.amount : new Decimal(a.amount).times('0.6').toFixed(2)}`,
        '2026-03-20',
        {
          paymentReference: `IHRE RECHNUNG ${a.number}`,
          description: 'SEPA-UEBERWEISUNG',
          counterpartyName: supplier,
          counterpartyAccountMasked: 'DE91 1000 0000 0123 4567 89',
        },
      ),
      expect: { outcome: 'none', invoiceIds: [] },
    })
  }
  for (let n = 1; n <= 4; n++) {
    const a = p.pick(
      (i) => hasAccount(i) && early(i) && new Decimal(i.amount).greaterThan(300) && i.currency === 'EUR',
    )
    const inflow = tx(`refund-${n}-paid`, a, a.amount, '2026-03-03', {
      paymentReference: `RECHNUNG ${a.number}`,
      description: 'SEPA CREDIT TRANSFER',
      counterpartyName: bankName(nameOf(a)),
      counterpartyAccountMasked: iban(a),
    })
    const wording = [
      `GUTSCHRIFT WARENRUECKSENDUNG ZU ${a.number}`,
      `REFUND RETURNED GOODS INV ${a.number}`,
      `REMBOURSEMENT RETOUR MARCHANDISE FACT ${a.number}`,
      `CREDIT NOTE REFUND ${a.number} RETURNED ITEMS`,
    ][n - 1]
    const id = `refund-goods-${n}`
    add({
      id,
      title: 'A refund for goods sent back, naming the paid invoice',
      why: `SEPA debit to the customer, Ustrd "${wording}": a credit for returned goods ("returned" in the business sense), not a payment return`,
      tags: ['return', 'refund', 'guard'],
      prior: [inflow],
      payment: tx(
        id,
        a,
        `-${new Decimal(a.amount).times(p.random.pick(['0.2', '0.35', '0.5'])).toFixed(2)}`,
        '2026-03-26',
        {
          paymentReference: wording,
          description: 'SEPA-UEBERWEISUNG',
          counterpartyName: bankName(nameOf(a)),
          counterpartyAccountMasked: iban(a),
        },
      ),
      expect: { outcome: 'none', invoiceIds: [] },
    })
  }
}
