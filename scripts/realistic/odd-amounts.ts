/**
 * A whole invoice number at an amount that is not what the invoice has open. A test transfer of a few cents before
 * the real payment names the invoice too, but pays nothing of it: a person decides. An odd part from the account
 * in the customer's master data is the customer's own part payment, and is applied.
 */
import { Decimal } from 'decimal.js'
import { bankName, ustrd } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'

type Kit = ReturnType<typeof caseKit>

const TEST_TRANSFERS = [
  ['0.01', 'TESTUEBERWEISUNG {n}'],
  ['0.01', 'TEST {n}'],
  ['0.10', 'Verification payment {n}'],
  ['1.00', '{n}'],
  ['0.02', 'Rechnung {n}'],
  ['1.00', 'TEST TRANSFER INVOICE {n}'],
] as const

/** A share no one pays an invoice in: 37 % plus 13 cents is neither an instalment nor a round percentage. */
const oddPart = (amount: string) => new Decimal(amount).times('0.37').plus('0.13').toFixed(2)

export function oddAmountCases(kit: Kit): void {
  const { p, add, person, applied, tx, nameOf, iban, hasAccount, unique, postedAfter, eu } = kit
  const newAccount = () =>
    `DE${p.random.digits(2)} ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(4)} ${p.random.digits(2)}`
  const large = (invoice: { amount: string }) => new Decimal(invoice.amount).greaterThan(200)

  TEST_TRANSFERS.forEach(([amount, wording], at) => {
    const a = p.pick((i) => eu(i) && unique(i) && large(i))
    const id = `test-transfer-${at + 1}`
    const text = wording.replace('{n}', a.number)
    add({
      id,
      title: 'A test transfer of a few cents naming an invoice, from an account nobody knows',
      why: `SEPA Ustrd "${text}" of ${amount} from a new IBAN in the customer's name, before the real payment`,
      tags: ['sepa', 'amount', 'guard'],
      payment: tx(id, a, amount, postedAfter(a, 12), {
        paymentReference: ustrd(text),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: newAccount(),
        customerReference: 'NOTPROVIDED',
      }),
      expect: person('suggested', [a]),
    })
  })
  for (let n = 1; n <= 4; n++) {
    const a = p.pick((i) => eu(i) && unique(i) && large(i) && hasAccount(i))
    const id = `odd-part-verified-${n}`
    const amount = oddPart(a.amount)
    add({
      id,
      title: "An odd part of an invoice, named whole, from the customer's own account",
      why: `SEPA Ustrd "RECHNUNG ${a.number}" at 37 % of it plus cents, from the IBAN in the customer's master data`,
      tags: ['sepa', 'amount', 'partial', 'payer'],
      payment: tx(id, a, amount, postedAfter(a), {
        paymentReference: ustrd(`RECHNUNG ${a.number}`),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
        customerReference: 'NOTPROVIDED',
      }),
      expect: applied([a], { [a.id]: amount }),
    })
  }
}
