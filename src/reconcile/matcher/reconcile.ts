import { Allocator, type Payment } from './allocate.js'
import { latestVersions, transactionPhase, type TransactionPhase } from './canonical-order.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from './config.js'
import { findReferences, type TransactionReferences } from './find-references.js'
import { InvoiceIndex } from './invoice-index.js'
import { InvoiceLedger } from './invoice-ledger.js'
import { formatUnits, toUnits } from './money.js'
import { compareAge, suggestMatch, suggestionKey } from './suggest.js'
import type {
  Allocation,
  InvoiceState,
  ManualAllocation,
  MatchException,
  MatchInvoice,
  MatchTransaction,
  RejectedSuggestion,
} from './types.js'

export type ReconcileInput = {
  /** The invoices of the set; every invoice a transaction of the set names must be among them. */
  invoices: readonly MatchInvoice[]
  /** Every version of every transaction of the set, in any order, duplicates allowed. */
  transactions: readonly MatchTransaction[]
  manualAllocations?: readonly ManualAllocation[]
  rejectedSuggestions?: readonly RejectedSuggestion[]
  config?: MatchConfig
  /** The index of all known invoices, so references to invoices outside the set are seen. Default: `invoices`. */
  index?: InvoiceIndex
  /**
   * What `findReferences` found for some transactions against this same index (the store keeps them); the others
   * are read here. A stale entry gives a stale result: recompute a transaction's references when it or an
   * invoice it could name changes.
   */
  references?: ReadonlyMap<string, TransactionReferences>
}

export type ReconcileResult = {
  allocations: Allocation[]
  exceptions: MatchException[]
  /** The derived state of every invoice of the set, by invoice id. */
  invoices: InvoiceState[]
  /** What each active inflow's references named (rule 1): the store keeps it to find a change's closed set. */
  references: Map<string, TransactionReferences>
}

const PHASES: readonly TransactionPhase[] = ['settled', 'tentative']

/** Active inflows, one version each, in canonical order: only inflows settle invoices (rule 2). */
function inflowsOf(transactions: readonly MatchTransaction[]): Payment[] {
  const payments: Payment[] = []
  for (const transaction of latestVersions(transactions)) {
    const phase = transactionPhase(transaction)
    if (phase === 'inactive') continue
    const amount = toUnits(transaction.amount)
    if (amount > 0n) payments.push({ transaction, amount, phase })
  }
  return payments
}

function latestInvoices(invoices: readonly MatchInvoice[]): readonly MatchInvoice[] {
  let ascending = true
  for (let index = 1; index < invoices.length && ascending; index++) {
    ascending = (invoices[index - 1] as MatchInvoice).id < (invoices[index] as MatchInvoice).id
  }
  if (ascending) return invoices
  const byId = new Map<string, MatchInvoice>()
  for (const invoice of invoices) {
    const current = byId.get(invoice.id)
    if (!current || JSON.stringify(invoice) > JSON.stringify(current)) byId.set(invoice.id, invoice)
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
}

/**
 * The allocations, exceptions and invoice states of a closed set of invoices and transactions, as a pure function
 * of that set (rule 9): the order given and duplicates do not matter. Allocation runs in one canonical order:
 * manual matches of settled money, references of settled money, then the same for pending money, then
 * suggestions for what no reference explains.
 */
export function reconcile(input: ReconcileInput): ReconcileResult {
  const config = input.config ?? DEFAULT_MATCH_CONFIG
  const invoices = latestInvoices(input.invoices)
  const index = input.index ?? new InvoiceIndex(invoices)
  const ledgers = new Map(invoices.map((invoice) => [invoice.id, new InvoiceLedger(invoice)]))
  const allocator = new Allocator(ledgers, config)
  const manualByTransaction = new Map<string, ManualAllocation[]>()
  for (const manual of input.manualAllocations ?? []) {
    const list = manualByTransaction.get(manual.transactionId) ?? []
    list.push(manual)
    manualByTransaction.set(manual.transactionId, list)
  }
  const inflows = inflowsOf(input.transactions)
  const references = new Map<string, TransactionReferences>()
  const unreferenced: Payment[] = []
  for (const phase of PHASES) {
    const ofPhase = inflows.filter((payment) => payment.phase === phase)
    for (const payment of ofPhase) {
      const manual = manualByTransaction.get(payment.transaction.id)
      if (manual) allocator.manual(payment, manual)
    }
    for (const payment of ofPhase) {
      const { transaction } = payment
      if (manualByTransaction.has(transaction.id)) continue
      const found = input.references?.get(transaction.id) ?? findReferences(index, transaction)
      references.set(transaction.id, found)
      if (found.outcome === 'named') {
        allocator.byReference(payment, found.field, found.invoices)
      } else if (found.outcome === 'ambiguous') {
        allocator.raise('ambiguous_reference', payment, {
          invoiceIds: found.invoiceIds,
          amount: formatUnits(payment.amount),
          reasons: [
            `${found.field} "${found.reference}" names ${found.invoiceIds.length} invoices with that number`,
          ],
        })
      } else {
        unreferenced.push(payment)
      }
    }
  }
  const rejected = new Set(
    (input.rejectedSuggestions ?? []).map((item) => suggestionKey(item.transactionId, item.invoiceIds)),
  )
  for (const transaction of unreferenced)
    suggest(transaction, { allocator, ledgers, index, config, rejected })
  return {
    allocations: allocator.allocations,
    exceptions: allocator.exceptions,
    invoices: [...ledgers.values()].map((ledger) => ledger.state()),
    references,
  }
}

type SuggestContext = {
  allocator: Allocator
  ledgers: ReadonlyMap<string, InvoiceLedger>
  index: InvoiceIndex
  config: MatchConfig
  rejected: ReadonlySet<string>
}

/** Rule 5, after every reference: a suggestion, an automatic allocation above the threshold, or unmatched. */
function suggest(payment: Payment, context: SuggestContext): void {
  const { allocator, ledgers, index, config, rejected } = context
  const { transaction, amount } = payment
  const candidates = index.ofCustomer(transaction.counterpartyName).flatMap((invoice) => {
    const ledger = ledgers.get(invoice.id)
    if (!ledger || invoice.void || invoice.currency !== transaction.currency) return []
    return [{ invoice: ledger.invoice, available: ledger.openForTentative() }]
  })
  const suggestion = suggestMatch({ transactionId: transaction.id, amount, candidates, config, rejected })
  if (!suggestion) {
    allocator.raise('unmatched_payment', payment, {
      amount: formatUnits(amount),
      reasons: [
        'no reference field names a known invoice',
        candidates.length === 0
          ? 'no open invoice of the counterparty in this currency'
          : `no set of at most ${config.maxSuggestionSetSize} open invoices of the counterparty sums to the amount`,
      ],
    })
    return
  }
  const threshold = config.autoConfirmThreshold
  if (threshold === null || suggestion.confidence < threshold) {
    allocator.raise('suggested_match', payment, {
      invoiceIds: suggestion.invoiceIds,
      amount: formatUnits(amount),
      confidence: suggestion.confidence,
      reasons: suggestion.reasons,
    })
    return
  }
  const chosen = suggestion.invoiceIds
    .map((invoiceId) => ledgers.get(invoiceId) as InvoiceLedger)
    .sort((a, b) => compareAge(a.invoice, b.invoice))
  const origin = {
    rule: 'suggestion',
    field: null,
    madeBy: 'engine',
    confidence: suggestion.confidence,
  } as const
  allocator.distribute(payment, amount, chosen, () => ({ origin, reference: null, via: null }))
}
