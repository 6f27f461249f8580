import { factsOf, type InvoiceFacts } from './invoice-facts.js'
import { InvoiceLedger } from './invoice-ledger.js'
import type { InvoiceState, MatchInvoice } from './types.js'

/** Up to this many ledgers an id is looked for in turn; more, by halving. */
const SCAN_LIMIT = 8

/**
 * The ledgers of a run's invoices, in id order, found by id without a map: a run's set is a few invoices, or a few
 * customers' few dozen, and a map of them (its table grown and its ids hashed as it fills) cost more to build than
 * the run's lookups save. Ids are compared with their facts' copy. A ledger is made when first asked for: of a
 * payment's set of a few dozen invoices (its customers' open invoices) most are only read, for an amount equal to
 * the payment (`openIs`) and for their state, which their facts tell while nothing has been booked on them.
 */
export class LedgerSet {
  readonly size: number
  private readonly facts: InvoiceFacts[]
  private readonly ledgers: Array<InvoiceLedger | undefined>

  /** `invoices` in ascending id order, each id once (as `matchPayments` makes them). */
  constructor(invoices: readonly MatchInvoice[]) {
    const facts = new Array<InvoiceFacts>(invoices.length)
    // The amounts are parsed here, as a ledger would: a bad amount throws before anything is matched.
    for (let at = 0; at < invoices.length; at++)
      facts[at] = factsOf(invoices[at] as MatchInvoice).parseAmount()
    this.facts = facts
    this.ledgers = new Array<InvoiceLedger | undefined>(invoices.length)
    this.size = facts.length
  }

  /** The position of the invoice with this id, or -1. */
  positionOf(invoiceId: string): number {
    const { facts } = this
    if (facts.length <= SCAN_LIMIT) {
      for (let at = 0; at < facts.length; at++) if ((facts[at] as InvoiceFacts).id === invoiceId) return at
      return -1
    }
    let low = 0
    let high = facts.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const id = (facts[middle] as InvoiceFacts).id
      if (id === invoiceId) return middle
      if (id < invoiceId) low = middle + 1
      else high = middle - 1
    }
    return -1
  }

  get(invoiceId: string): InvoiceLedger | undefined {
    const at = this.positionOf(invoiceId)
    return at < 0 ? undefined : this.at(at)
  }

  has(invoiceId: string): boolean {
    return this.positionOf(invoiceId) >= 0
  }

  /** The facts of the invoice at `position` (in id order). */
  factsAt(position: number): InvoiceFacts {
    return this.facts[position] as InvoiceFacts
  }

  /** The ledger of the invoice at `position`, made when first asked for. */
  at(position: number): InvoiceLedger {
    let ledger = this.ledgers[position]
    if (ledger === undefined) {
      const facts = this.facts[position] as InvoiceFacts
      ledger = new InvoiceLedger(facts.invoice, facts)
      this.ledgers[position] = ledger
    }
    return ledger
  }

  /** `InvoiceLedger.openIs` of the invoice at `position`, without making its ledger while it has none. */
  openIs(position: number, amount: bigint, cents: number, tentative: boolean): boolean {
    const ledger = this.ledgers[position]
    if (ledger !== undefined) return ledger.openIs(amount, cents, tentative)
    const untouched = InvoiceLedger.untouchedOpenIs(this.facts[position] as InvoiceFacts, cents)
    return untouched ?? this.at(position).openIs(amount, cents, tentative)
  }

  /** `InvoiceLedger.openForTentative` of the invoice at `position`, without making its ledger while it has none. */
  openForTentative(position: number): bigint {
    const ledger = this.ledgers[position]
    if (ledger !== undefined) return ledger.openForTentative()
    return (
      InvoiceLedger.untouchedOpen(this.facts[position] as InvoiceFacts) ??
      this.at(position).openForTentative()
    )
  }

  /** The ledgers in id order (every one made). */
  values(): InvoiceLedger[] {
    const list = new Array<InvoiceLedger>(this.size)
    for (let at = 0; at < this.size; at++) list[at] = this.at(at)
    return list
  }

  /** Every invoice's state in id order: an invoice without a ledger is told by its facts. */
  states(): InvoiceState[] {
    const states = new Array<InvoiceState>(this.size)
    for (let at = 0; at < this.size; at++) {
      const ledger = this.ledgers[at]
      states[at] =
        ledger !== undefined
          ? ledger.state()
          : (InvoiceLedger.untouchedState(this.facts[at] as InvoiceFacts) ?? this.at(at).state())
    }
    return states
  }
}
