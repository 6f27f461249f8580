import { formatUnits, toUnits } from './money.js'
import type { InvoiceState, InvoiceStatus, MatchInvoice } from './types.js'

/** The running totals of one invoice, in money units, while a set of transactions is allocated to it. */
export class InvoiceLedger {
  readonly amount: bigint
  paid = 0n
  pending = 0n
  writtenOff = 0n
  overpaid = 0n

  constructor(readonly invoice: MatchInvoice) {
    this.amount = toUnits(invoice.amount)
  }

  /** What settled money may still pay. */
  openForSettled(): bigint {
    const open = this.amount - this.paid - this.writtenOff
    return open > 0n ? open : 0n
  }

  /** What pending money may still hold: the open amount not already held by earlier pending money. */
  openForTentative(): bigint {
    const rest = this.openForSettled() - this.pending
    return rest > 0n ? rest : 0n
  }

  status(): InvoiceStatus {
    if (this.invoice.void) return 'void'
    if (this.overpaid > 0n) return 'overpaid'
    if (this.openForSettled() === 0n) return 'paid'
    return this.paid > 0n ? 'partially_paid' : 'open'
  }

  state(): InvoiceState {
    return {
      invoiceId: this.invoice.id,
      status: this.status(),
      amountPaid: formatUnits(this.paid),
      amountPending: formatUnits(this.pending),
      amountOpen: formatUnits(this.openForSettled()),
      amountOverpaid: formatUnits(this.overpaid),
      amountWrittenOff: formatUnits(this.writtenOff),
    }
  }
}
