import type { Allocator } from './allocate.js'
import type { Payment } from './payment.js'
import type { MatchConfig } from './config.js'
import type { PayerIdentity } from './customer-directory.js'
import { customerKeyOf } from './invoice-facts.js'
import type { InvoiceIndex } from './invoice-index.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { suggestionKey } from './suggest.js'
import type { MatchInvoice } from './types.js'
import type { LedgerSet } from './ledger-set.js'

/** What one matching run shares between its steps. */
export class MatchContext {
  constructor(
    readonly allocator: Allocator,
    readonly ledgers: LedgerSet,
    readonly index: InvoiceIndex,
    readonly config: MatchConfig,
    /** Suggestions (and returns) a person rejected, by `suggestionKey`. */
    readonly rejected: ReadonlySet<string>,
  ) {}

  /** Who paid (the directory remembers payers it recognised). */
  payer({ transaction }: Payment): PayerIdentity {
    return this.index.customers.identify(transaction.counterpartyName, transaction.counterpartyAccountMasked)
  }
}

/** What settled money may still pay, or pending money still hold, on a ledger. */
export function openFor(payment: Payment, ledger: InvoiceLedger): bigint {
  return payment.phase === 'settled' ? ledger.openForSettled() : ledger.openForTentative()
}

/** Only the ledgers whose open amount is exactly this (`InvoiceLedger.openIs`). */
export type OpenExactly = { amount: bigint; cents: number; tentative: boolean }

/**
 * The live invoices of these customers in the payment's currency that are in the set, oldest first; with
 * `exactly`, only those whose open amount it is (a ledger is made only for them).
 */
export function openInvoicesOf(
  context: MatchContext,
  customers: readonly string[],
  currency: string,
  exactly?: OpenExactly,
): InvoiceLedger[] {
  const set = context.ledgers
  const positions = openPositionsOf(context, customers, currency)
  const ledgers: InvoiceLedger[] = []
  for (const at of positions) {
    if (!exactly || set.openIs(at, exactly.amount, exactly.cents, exactly.tentative)) ledgers.push(set.at(at))
  }
  return ledgers
}

/**
 * `openInvoicesOf` as positions in the run's `LedgerSet` (ascending: by id), so a caller that only reads the
 * invoices' open amounts makes no ledger for them.
 */
export function openPositionsOf(
  context: MatchContext,
  customers: readonly string[],
  currency: string,
): number[] {
  const set = context.ledgers
  // An invoice has one customer key: distinct keys give distinct invoices, each list already by id.
  const lists: Array<readonly MatchInvoice[]> = []
  let listed = 0
  for (let at = 0; at < customers.length; at++) {
    const key = customers[at] as string
    if (customers.indexOf(key) < at) continue
    const list = context.index.ofCustomerKey(key)
    lists.push(list)
    listed += list.length
  }
  if (set.size <= listed) {
    // The set holds no more invoices than these customers have: its invoices, already by id, are read in turn
    // (no lookup per invoice, no sort), each by the index's invoice of its id (mostly its own, told by its facts).
    // The list is made for all of them and cut: grown from empty it would be copied as it grows.
    const found = new Array<number>(set.size)
    let count = 0
    for (let at = 0; at < set.size; at++) {
      const facts = set.factsAt(at)
      const invoice = facts.heldBy === context.index ? facts.invoice : context.index.get(facts.id)
      if (!invoice || invoice.void || invoice.currency !== currency) continue
      const key = invoice === facts.invoice ? facts.customerKey() : customerKeyOf(invoice)
      if (key !== null && customers.includes(key)) found[count++] = at
    }
    found.length = count
    return found
  }
  const positions: number[] = []
  for (const list of lists) {
    for (const invoice of list) {
      const at = set.positionOf(invoice.id)
      if (at >= 0 && !invoice.void && invoice.currency === currency) positions.push(at)
    }
  }
  // Positions are in id order: several customers' lists merge by a sort of numbers.
  return lists.length > 1 ? positions.sort(ascending) : positions
}

function ascending(a: number, b: number): number {
  return a - b
}

export function isRejected(
  context: MatchContext,
  transactionId: string,
  invoiceIds: readonly string[],
): boolean {
  return context.rejected.size > 0 && context.rejected.has(suggestionKey(transactionId, invoiceIds))
}
