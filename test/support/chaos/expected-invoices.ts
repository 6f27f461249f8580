import { Decimal } from 'decimal.js'
import { CHAOS_INVOICE_PREFIX } from './invoice-plan.js'

type Invoice = { id: string; number: string; amount: string; currency: string }
type BankTransaction = {
  id: string
  amount: string
  currency: string
  status: string
  paymentReference: string | null
  customerReference?: string | null
  description?: string | null
  rawDescription?: string | null
}

export type ExpectedInvoices = {
  /** Invoice id → the settled amount it must show: posted inflows naming it, at most its amount. */
  amountPaid: Map<string, string>
  /** Transactions that break the scenario's premise (a chaos number anywhere but in its payment reference). */
  unsound: string[]
}

/**
 * What matching must make of the chaos payments, computed from the bank's final truth without the matcher: the
 * scenario names each invoice only by its exact number in `paymentReference`, in the invoice's currency, so an
 * invoice's paid amount is the sum of the posted positive transactions carrying its number, capped at its amount.
 */
export function expectedInvoices(
  invoices: readonly Invoice[],
  transactions: readonly BankTransaction[],
): ExpectedInvoices {
  const byNumber = new Map(invoices.map((invoice) => [invoice.number, invoice]))
  const settled = new Map<string, Decimal>()
  const unsound: string[] = []
  for (const t of transactions) {
    const invoice = t.paymentReference ? byNumber.get(t.paymentReference) : undefined
    const elsewhere = [t.customerReference, t.description, t.rawDescription].filter(
      (text) => text?.includes(CHAOS_INVOICE_PREFIX) && !(invoice && text.includes(invoice.number)),
    )
    if (elsewhere.length > 0 || (!invoice && t.paymentReference?.includes(CHAOS_INVOICE_PREFIX))) {
      unsound.push(`transaction ${t.id} names a chaos invoice outside its payment reference`)
    }
    if (!invoice || t.status !== 'posted' || t.currency !== invoice.currency) continue
    const amount = new Decimal(t.amount)
    if (amount.lte(0)) continue
    settled.set(invoice.id, (settled.get(invoice.id) ?? new Decimal(0)).plus(amount))
  }
  const amountPaid = new Map<string, string>()
  for (const invoice of invoices) {
    const paid = Decimal.min(settled.get(invoice.id) ?? 0, new Decimal(invoice.amount))
    amountPaid.set(invoice.id, paid.toString())
  }
  return { amountPaid, unsound }
}
