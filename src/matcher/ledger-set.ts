import { InvoiceLedger } from './invoice-ledger.js'
import type { MatchInvoice } from './types.js'

/** Up to this many ledgers an id is looked for in turn; more, by halving. */
const SCAN_LIMIT = 8

/**
 * The ledgers of a run's invoices, in id order, found by id without a map: a run's set is a few invoices, or a few
 * customers' few dozen, and a map of them (its table grown and its ids hashed as it fills) cost more to build than
 * the run's lookups save. Ids are compared with their facts' copy, read with the ledger, not with the invoice.
 * The allocator, the returns, the credits and `openInvoicesOf` take this kind only: `openInvoicesOf` reads the
 * ledgers in turn as already in id order, which no `Map` promises.
 */
export class LedgerSet {
  readonly size: number
  private readonly list: InvoiceLedger[]

  /** `invoices` in ascending id order, each id once (as `matchPayments` makes them). */
  constructor(invoices: readonly MatchInvoice[]) {
    const list = new Array<InvoiceLedger>(invoices.length)
    for (let at = 0; at < invoices.length; at++) list[at] = new InvoiceLedger(invoices[at] as MatchInvoice)
    this.list = list
    this.size = list.length
  }

  get(invoiceId: string): InvoiceLedger | undefined {
    const { list } = this
    if (list.length <= SCAN_LIMIT) {
      for (let at = 0; at < list.length; at++) {
        const ledger = list[at] as InvoiceLedger
        if (ledger.facts.id === invoiceId) return ledger
      }
      return undefined
    }
    let low = 0
    let high = list.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const ledger = list[middle] as InvoiceLedger
      const id = ledger.facts.id
      if (id === invoiceId) return ledger
      if (id < invoiceId) low = middle + 1
      else high = middle - 1
    }
    return undefined
  }

  has(invoiceId: string): boolean {
    return this.get(invoiceId) !== undefined
  }

  /** The ledgers in id order. */
  values(): readonly InvoiceLedger[] {
    return this.list
  }
}
