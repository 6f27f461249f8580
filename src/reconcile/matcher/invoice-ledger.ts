import { Decimal } from 'decimal.js'
import { ZERO, toAmountString, toDecimal } from './money.js'
import type { InvoiceState, InvoiceStatus, MatchInvoice } from './types.js'

/** The running totals of one invoice while a set of transactions is allocated to it. */
export class InvoiceLedger {
  readonly amount: Decimal
  paid: Decimal = ZERO
  pending: Decimal = ZERO
  writtenOff: Decimal = ZERO
  overpaid: Decimal = ZERO

  constructor(readonly invoice: MatchInvoice) {
    this.amount = toDecimal(invoice.amount)
  }

  /** What settled money may still pay. */
  openForSettled(): Decimal {
    return Decimal.max(this.amount.minus(this.paid).minus(this.writtenOff), ZERO)
  }

  /** What pending money may still hold: the open amount not already held by earlier pending money. */
  openForTentative(): Decimal {
    return Decimal.max(this.openForSettled().minus(this.pending), ZERO)
  }

  status(): InvoiceStatus {
    if (this.invoice.void) return 'void'
    if (this.overpaid.gt(0)) return 'overpaid'
    if (this.openForSettled().isZero()) return 'paid'
    return this.paid.gt(0) ? 'partially_paid' : 'open'
  }

  state(): InvoiceState {
    return {
      invoiceId: this.invoice.id,
      status: this.status(),
      amountPaid: toAmountString(this.paid),
      amountPending: toAmountString(this.pending),
      amountOpen: toAmountString(this.openForSettled()),
      amountOverpaid: toAmountString(this.overpaid),
      amountWrittenOff: toAmountString(this.writtenOff),
    }
  }
}
