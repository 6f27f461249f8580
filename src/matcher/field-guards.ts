import type { OtherFieldHit, ReferenceHit } from './find-references.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { openFor, type MatchContext } from './match-context.js'
import { advanceWording, awaitingInvoice, unknownInvoiceNumbers } from './not-yet-invoiced.js'
import type { Payment } from './payment.js'
import type { Evidence, ReferenceField } from './types.js'

type Named = { ledger: InvoiceLedger; hit: ReferenceHit; field: ReferenceField }

const FIELD_NAMES: Record<ReferenceField, string> = {
  paymentReference: 'the payment reference',
  customerReference: 'the customer reference',
  description: 'the description',
  rawDescription: 'the raw description',
}

function numbers(items: readonly Named[]): string {
  return items.map((item) => item.ledger.invoice.number).join(', ')
}

/**
 * Rule 11: the other fields name other invoices. When the amount is exactly what the chosen field's invoices and
 * theirs have open together, the payment settles all of them (`combined`); otherwise the fields disagree, a
 * conflict a person resolves: the strongest field does not simply win.
 */
export function otherFields(
  context: MatchContext,
  payment: Payment,
  live: readonly Named[],
  others: readonly OtherFieldHit[],
): { combined: Named[] | null; evidence: Evidence } | null {
  const extra: Named[] = []
  for (const { field, hit } of others) {
    for (const id of hit.invoiceIds) {
      const ledger = context.allocator.ledger(id, payment.transaction.id)
      if (ledger.invoice.void || extra.some((item) => item.ledger === ledger)) continue
      if (live.some((item) => item.ledger === ledger)) continue
      extra.push({ ledger, hit, field })
    }
  }
  const [first] = live as [Named]
  const where = FIELD_NAMES[first.field]
  if (extra.length === 0) return null
  const elsewhere = [...new Set(extra.map((item) => FIELD_NAMES[item.field]))].join(' and ')
  const all = [...live, ...extra]
  const sameCurrency = extra.every((item) => item.ledger.invoice.currency === payment.transaction.currency)
  const open = all.reduce((sum, item) => sum + openFor(payment, item.ledger), 0n)
  if (
    sameCurrency &&
    extra.length === new Set(extra.map((item) => item.hit)).size &&
    open === payment.amount
  ) {
    return {
      combined: all,
      evidence: {
        code: 'fields_combined',
        points: 0,
        text: `${where} names invoice ${numbers(live)} and ${elsewhere} invoice ${numbers(extra)}: the amount is exactly what they have open together`,
      },
    }
  }
  return {
    combined: null,
    evidence: {
      code: 'conflict_fields',
      points: 0,
      text: `${where} names invoice ${numbers(live)}, but ${elsewhere} names invoice ${numbers(extra)}, and the amount is not what they have open together`,
      conflict: 'unexplained',
    },
  }
}

/**
 * Rule 6 on a payment whose reference named invoices: advance wording (checked when the amount does not fit or a
 * hit is only a number core), and, when the amount does not fit, invoice numbers the books do not have yet.
 */
export function textGuards(
  context: MatchContext,
  payment: Payment,
  amountFits: boolean,
  corroborated: boolean,
  anyCore: boolean,
): { advance: Evidence | null; awaiting: Evidence | null } {
  const advance = !amountFits || anyCore ? advanceWording(payment.transaction) : null
  const unknown = corroborated ? [] : unknownInvoiceNumbers(context.index, payment.transaction)
  return { advance, awaiting: unknown.length > 0 ? awaitingInvoice(unknown) : null }
}
