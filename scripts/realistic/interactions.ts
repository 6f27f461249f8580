/**
 * Bank lines that depend on others: the same payment twice, an invoice amended (voided and reissued) before the
 * payment, and batches of several payments matched in one run.
 */
import { bankName, ref18, ustrd } from '../../test/support/bank-lines.js'
import type { caseKit } from '../../test/support/case-kit.js'
import type { BookInvoice, RealisticCase } from '../../test/support/realistic-book.js'

type Kit = ReturnType<typeof caseKit>

export function interactionCases(kit: Kit): void {
  const { p, add, applied, person, tx, nameOf, iban, hasAccount } = kit
  const sepaLine = (id: string, invoice: BookInvoice, date: string, text: string) =>
    tx(id, invoice, invoice.amount, date, {
      paymentReference: ustrd(text),
      description: 'SEPA CREDIT TRANSFER',
      counterpartyName: bankName(nameOf(invoice)),
      counterpartyAccountMasked: hasAccount(invoice) ? iban(invoice) : null,
    })

  for (let n = 1; n <= 5; n++) {
    const a = p.pick((i) => i.entityId === 'ent_eu' && (i.issueDate ?? '') < '2026-03-01')
    const first = sepaLine(`duplicate-${n}-first`, a, '2026-03-16', `RECHNUNG ${a.number}`)
    const id = `duplicate-${n}`
    add({
      id,
      title: 'The same payment twice: the second finds the invoice paid',
      why: 'camt.053: two SEPA credits days apart, same Ustrd and amount (the payer’s AP ran the batch twice)',
      tags: ['duplicate', 'interaction', 'guard'],
      prior: [first],
      payment: sepaLine(id, a, `2026-03-${17 + n}`, `RECHNUNG ${a.number}`),
      expect: person('unmatched', [a]),
    })
  }
  for (let n = 1; n <= 4; n++) {
    const a = p.pick(
      (i) =>
        i.entityId === 'ent_eu' &&
        hasAccount(i) &&
        !p.invoicesOf(i.customerId ?? '').some((o) => o.amount === `${1200 + n * 100}.00`),
    )
    const base = { ...a, issueDate: '2026-03-02', dueDate: '2026-04-01', paymentReference: null }
    const voided: BookInvoice = {
      ...base,
      id: `${a.id}-void`,
      number: p.unissued('INV-2026-0', 900 + n),
      amount: `${1350 + n * 100}.00`,
      void: true,
    }
    const amended: BookInvoice = {
      ...base,
      id: `${a.id}-amended`,
      number: p.unissued('INV-2026-0', 910 + n),
      amount: `${1200 + n * 100}.00`,
    }
    const id = `amended-${n}`
    add({
      id,
      title: 'Pays the amended invoice’s amount quoting the voided original',
      why: 'SEPA Ustrd "RECHNUNG <original number>": the original was voided and reissued with a new number and amount; the payer kept the old number',
      tags: ['void', 'interaction'],
      invoices: [voided, amended],
      payment: tx(id, a, amended.amount, '2026-03-25', {
        paymentReference: ustrd(`RECHNUNG ${voided.number}`),
        description: 'SEPA CREDIT TRANSFER',
        counterpartyName: bankName(nameOf(a)),
        counterpartyAccountMasked: iban(a),
      }),
      expect: person('suggested', [amended]),
    })
  }
  for (let n = 1; n <= 6; n++) {
    const size = p.random.int(3, 5)
    const lines: Array<{ invoice: BookInvoice; id: string }> = []
    for (let at = 0; at < size; at++) {
      const invoice = p.pick(
        (i) => i.entityId === (n % 2 === 0 ? 'ent_uk' : 'ent_eu') && (i.issueDate ?? '') < '2026-03-15',
      )
      lines.push({ invoice, id: `tx-batch-${n}-${at + 1}` })
    }
    const payment = ({ invoice, id }: { invoice: BookInvoice; id: string }) =>
      n % 2 === 0
        ? tx(id.slice(3), invoice, invoice.amount, '2026-03-27', {
            paymentReference: ref18(`${invoice.number} ${bankName(nameOf(invoice))}`),
            description: 'BACS CREDIT',
            counterpartyName: bankName(nameOf(invoice), 18),
          })
        : sepaLine(id.slice(3), invoice, '2026-03-27', `RECHNUNG ${invoice.number}`)
    const [head, ...rest] = lines as [(typeof lines)[0], ...typeof lines]
    const batch: NonNullable<RealisticCase['batch']> = rest.map((line) => ({
      payment: payment(line),
      expect: applied([line.invoice]),
    }))
    // Every third batch also holds a second payment of its first invoice: the invoice is paid by then.
    if (n % 3 === 0) {
      batch.push({
        payment: { ...payment(head), id: `tx-batch-${n}-again`, postedDate: '2026-03-28' },
        expect: person('unmatched', [head.invoice]),
      })
    }
    add({
      id: `batch-${n}`,
      title: `A statement of ${batch.length + 1} payments matched in one run`,
      why:
        n % 2 === 0
          ? 'UK BACS credits of one statement day, each 18-character reference naming one invoice, all in one matching run'
          : 'camt.053 statement with several SEPA credits, each naming one invoice, all in one matching run',
      tags: ['batch', 'interaction', n % 2 === 0 ? 'bacs' : 'sepa'],
      batch,
      payment: payment(head),
      expect: applied([head.invoice]),
    })
  }
}
