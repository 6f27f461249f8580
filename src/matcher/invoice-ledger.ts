import { factsOf, type InvoiceFacts } from './invoice-facts.js'
import { formatUnits } from './money.js'
import type { InvoiceState, InvoiceStatus, MatchInvoice } from './types.js'

/** The running totals of one invoice, in money units, while a set of transactions is allocated to it. */
export class InvoiceLedger {
  readonly amount: bigint
  /** The invoice's facts (its amounts parsed). */
  readonly facts: InvoiceFacts
  paid = 0n
  pending = 0n
  /** Residuals written off, starting with a person's write-offs of the invoice's rest. */
  writtenOff: bigint
  overpaid = 0n
  /** Credit notes netted against the invoice and not yet booked (the first settled allocation writes them off). */
  credits: bigint

  /** `facts`: the invoice's, when the caller has them (`factsOf(invoice)`, its amounts parsed). */
  constructor(
    readonly invoice: MatchInvoice,
    facts: InvoiceFacts = factsOf(invoice).parseAmount(),
  ) {
    this.facts = facts
    this.amount = this.facts.units
    this.credits = this.facts.credits
    this.writtenOff = this.facts.writtenOff
  }

  /** `amount` as a decimal string (formatted once per invoice). */
  get amountText(): string {
    return this.facts.amountText
  }

  /** What settled money may still pay. */
  openForSettled(): bigint {
    if (this.paid === 0n && this.writtenOff === 0n && this.credits === 0n) {
      return this.facts.owesNothing ? 0n : this.amount
    }
    const open = this.amount - this.paid - this.writtenOff - this.credits
    return open > 0n ? open : 0n
  }

  /**
   * Whether what settled money (`tentative`: pending money) may still take here is exactly `amount`, whose cents
   * (`centsOf`) are `cents`. Nothing taken yet, that is the invoice's amount: then compared in cents, without
   * reading the amount itself (at 100,000 invoices a CPU cache miss for each of a customer's invoices).
   */
  openIs(amount: bigint, cents: number, tentative: boolean): boolean {
    if (this.paid === 0n && this.pending === 0n && this.writtenOff === 0n && this.credits === 0n) {
      const untouched = InvoiceLedger.untouchedOpenIs(this.facts, cents)
      if (untouched !== null) return untouched
    }
    return (tentative ? this.openForTentative() : this.openForSettled()) === amount
  }

  /**
   * What an invoice nothing was booked on has open (settled or pending money alike), told by its facts: null when
   * it has credits or write-offs (its ledger tells).
   */
  static untouchedOpen(facts: InvoiceFacts): bigint | null {
    if (facts.writtenOff !== 0n || facts.credits !== 0n) return null
    return facts.owesNothing ? 0n : facts.units
  }

  /**
   * `openIs` of an invoice nothing was booked on (no ledger yet, or one untouched), told by its facts alone when
   * it has no credits or write-offs and both amounts are in cents; null when its ledger must tell.
   */
  static untouchedOpenIs(facts: InvoiceFacts, cents: number): boolean | null {
    if (cents < 0 || facts.cents < 0 || facts.writtenOff !== 0n || facts.credits !== 0n) return null
    return facts.cents === cents
  }

  /** Books the credit notes not yet booked: they become part of what is written off. */
  bookCredits(): bigint {
    const credits = this.credits
    this.writtenOff += credits
    this.credits = 0n
    return credits
  }

  /** What pending money may still hold: the open amount not already held by earlier pending money. */
  openForTentative(): bigint {
    if (this.pending === 0n) return this.openForSettled()
    const rest = this.openForSettled() - this.pending
    return rest > 0n ? rest : 0n
  }

  status(): InvoiceStatus {
    if (this.invoice.void) return 'void'
    if (this.overpaid > 0n) return 'overpaid'
    if (this.openForSettled() === 0n) return 'paid'
    return this.paid > 0n ? 'partially_paid' : 'open'
  }

  /**
   * The state of an invoice nothing was booked on, told by its facts: null when it has credits or write-offs (its
   * ledger tells).
   */
  static untouchedState(facts: InvoiceFacts): InvoiceState | null {
    if (facts.writtenOff !== 0n || facts.credits !== 0n) return null
    const { invoice } = facts
    return {
      invoiceId: invoice.id,
      status: invoice.void ? 'void' : facts.owesNothing ? 'paid' : 'open',
      amountPaid: '0',
      amountPending: '0',
      amountOpen: facts.amountText,
      amountOverpaid: '0',
      amountWrittenOff: '0',
    }
  }

  /** `units` is the invoice's whole (positive) amount: its text is `amountText`, formatted once per invoice. */
  private inFull(units: bigint): boolean {
    return units === this.amount && !this.facts.owesNothing
  }

  state(): InvoiceState {
    if (this.paid === 0n && this.pending === 0n && this.overpaid === 0n) {
      const untouched = InvoiceLedger.untouchedState(this.facts)
      // Its credits or write-offs untouched too: the facts' state is the ledger's.
      if (untouched !== null && this.writtenOff === 0n && this.credits === 0n) return untouched
    }
    return {
      invoiceId: this.invoice.id,
      status: this.status(),
      amountPaid: this.inFull(this.paid) ? this.facts.amountText : formatUnits(this.paid),
      amountPending: this.inFull(this.pending) ? this.facts.amountText : formatUnits(this.pending),
      amountOpen: formatUnits(this.openForSettled()),
      amountOverpaid: formatUnits(this.overpaid),
      amountWrittenOff: formatUnits(this.writtenOff),
    }
  }
}
