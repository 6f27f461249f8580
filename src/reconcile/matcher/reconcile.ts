import { Allocator } from './allocate.js'
import { latestVersions, transactionPhase, type TransactionPhase } from './canonical-order.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from './config.js'
import { findReferences, type TransactionReferences } from './find-references.js'
import { InvoiceIndex } from './invoice-index.js'
import { InvoiceLedger } from './invoice-ledger.js'
import { toAmountString, toDecimal } from './money.js'
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

function latestInvoices(invoices: readonly MatchInvoice[]): MatchInvoice[] {
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
  const inflows = latestVersions(input.transactions).filter(
    (transaction) => transactionPhase(transaction) !== 'inactive' && toDecimal(transaction.amount).gt(0),
  )
  const references = new Map<string, TransactionReferences>()
  const unreferenced: MatchTransaction[] = []
  for (const phase of PHASES) {
    const ofPhase = inflows.filter((transaction) => transactionPhase(transaction) === phase)
    for (const transaction of ofPhase) {
      const manual = manualByTransaction.get(transaction.id)
      if (manual) allocator.manual(transaction, phase, manual)
    }
    for (const transaction of ofPhase) {
      if (manualByTransaction.has(transaction.id)) continue
      const found = findReferences(index, transaction)
      references.set(transaction.id, found)
      if (found.outcome === 'named') {
        allocator.byReference(transaction, phase, found.field, found.invoices)
      } else if (found.outcome === 'ambiguous') {
        allocator.raise('ambiguous_reference', transaction, phase, {
          invoiceIds: found.invoiceIds,
          amount: toAmountString(toDecimal(transaction.amount)),
          reasons: [
            `${found.field} "${found.reference}" names ${found.invoiceIds.length} invoices with that number`,
          ],
        })
      } else {
        unreferenced.push(transaction)
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
function suggest(transaction: MatchTransaction, context: SuggestContext): void {
  const { allocator, ledgers, index, config, rejected } = context
  const phase = transactionPhase(transaction)
  const amount = toDecimal(transaction.amount)
  const candidates = index.ofCustomer(transaction.counterpartyName).flatMap((invoice) => {
    const ledger = ledgers.get(invoice.id)
    if (!ledger || invoice.void || invoice.currency !== transaction.currency) return []
    return [{ invoice: ledger.invoice, available: ledger.openForTentative() }]
  })
  const suggestion = suggestMatch({ transactionId: transaction.id, amount, candidates, config, rejected })
  if (!suggestion) {
    allocator.raise('unmatched_payment', transaction, phase, {
      amount: toAmountString(amount),
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
    allocator.raise('suggested_match', transaction, phase, {
      invoiceIds: suggestion.invoiceIds,
      amount: toAmountString(amount),
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
  allocator.distribute(transaction, phase, amount, chosen, () => ({ origin, reference: null, via: null }))
}
