import { Allocator } from './allocate.js'
import { raiseReturn, takeBackPartialReturns } from './apply-returns.js'
import type { Payment } from './payment.js'
import { latestVersions, transactionPhase, type TransactionPhase } from './canonical-order.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from './config.js'
import { NO_EVIDENCE } from './evidence.js'
import { findReferences, referencedInvoiceIds, type TransactionReferences } from './find-references.js'
import { InvoiceIndex } from './invoice-index.js'
import { LedgerSet } from './ledger-set.js'
import { MatchContext } from './match-context.js'
import { toUnits } from './money.js'
import { allocateByPayer } from './payer-decision.js'
import { allocateByReference } from './reference-decision.js'
import { applyCredits, disposedUnits, withoutDisposed } from './dispositions.js'
import { findReturns } from './returns.js'
import { sortById } from './sort-by-id.js'
import { suggestionKey } from './suggest.js'
import type {
  Allocation,
  InvoiceState,
  ManualAllocation,
  MatchCustomer,
  MatchException,
  MatchInvoice,
  MatchTransaction,
  PaymentDisposition,
  PaymentReturn,
  RejectedSuggestion,
} from './types.js'

export type MatchPaymentsInput = {
  /** The invoices of the set; every invoice a transaction of the set names must be among them. */
  invoices: readonly MatchInvoice[]
  /** Every version of every transaction of the set, in any order, duplicates allowed. */
  transactions: readonly MatchTransaction[]
  manualAllocations?: readonly ManualAllocation[]
  rejectedSuggestions?: readonly RejectedSuggestion[]
  /** A person's dispositions in force: their amounts are out of matching; credit on account is applied. */
  dispositions?: readonly PaymentDisposition[]
  config?: MatchConfig
  /**
   * The index of all known invoices and customers, so references to invoices outside the set are seen and payers
   * recognised. Default: `invoices` and `customers`.
   */
  index?: InvoiceIndex
  /** The customers of the master data (with what a person's matches taught), when no `index` is given. */
  customers?: readonly MatchCustomer[]
  /**
   * What `findReferences` found for some transactions against this same index (the store keeps them); the others
   * are read here. A stale entry gives a stale result: recompute a transaction's references when it or an
   * invoice it could name changes.
   */
  references?: ReadonlyMap<string, TransactionReferences>
}

export type MatchPaymentsResult = {
  allocations: Allocation[]
  exceptions: MatchException[]
  /** The derived state of every invoice of the set, by invoice id. */
  invoices: InvoiceState[]
  /** What each active inflow's references named (rule 1): the store keeps it to find a change's closed set. */
  references: Map<string, TransactionReferences>
  /** Outflows that return an earlier inflow: the inflow allocates nothing. */
  returns: PaymentReturn[]
}

const PHASES: readonly TransactionPhase[] = ['settled', 'tentative']
const NOTHING_REJECTED: ReadonlySet<string> = new Set()
const NOTHING_RETURNED: ReadonlySet<string> = new Set()
const NO_MANUALS: ReadonlyMap<string, ManualAllocation[]> = new Map()
const NO_OUTFLOWS: readonly MatchTransaction[] = []

function manualsByTransaction(
  manualAllocations: readonly ManualAllocation[],
): Map<string, ManualAllocation[]> {
  const byTransaction = new Map<string, ManualAllocation[]>()
  for (const manual of manualAllocations) {
    const list = byTransaction.get(manual.transactionId)
    if (list) list.push(manual)
    else byTransaction.set(manual.transactionId, [manual])
  }
  return byTransaction
}

/** What a transaction's references name: as the caller found them, else read once per run. */
function knownReferences(
  references: Map<string, TransactionReferences>,
  given: ReadonlyMap<string, TransactionReferences> | undefined,
  index: InvoiceIndex,
  transaction: MatchTransaction,
): TransactionReferences {
  let found = references.get(transaction.id)
  if (!found) {
    found = given?.get(transaction.id) ?? findReferences(index, transaction)
    references.set(transaction.id, found)
  }
  return found
}

/** Active transactions, one version each, in canonical order: inflows settle invoices (rule 2), outflows may return them. */
function activeOf(transactions: readonly MatchTransaction[]): {
  inflows: Payment[]
  outflows: readonly MatchTransaction[]
} {
  const latest = latestVersions(transactions)
  // Lists of the largest size they can have, cut to what they hold: a list grown from empty by a push is given
  // room for 17. The outflows' list is made at the first outflow (most runs have none).
  const inflows = new Array<Payment>(latest.length)
  let outflows: MatchTransaction[] | null = null
  let inflowCount = 0
  let outflowCount = 0
  for (const transaction of latest) {
    const phase = transactionPhase(transaction)
    if (phase === 'inactive') continue
    const amount = toUnits(transaction.amount)
    if (amount > 0n) inflows[inflowCount++] = { transaction, amount, phase }
    else if (amount < 0n)
      (outflows ??= new Array<MatchTransaction>(latest.length))[outflowCount++] = transaction
  }
  inflows.length = inflowCount
  if (outflows === null) return { inflows, outflows: NO_OUTFLOWS }
  outflows.length = outflowCount
  return { inflows, outflows }
}

function latestInvoices(invoices: readonly MatchInvoice[]): readonly MatchInvoice[] {
  let ascending = true
  for (let index = 1; index < invoices.length && ascending; index++) {
    ascending = (invoices[index - 1] as MatchInvoice).id < (invoices[index] as MatchInvoice).id
  }
  if (ascending) return invoices
  const sorted = sortById(invoices, invoiceId)
  let duplicates = false
  for (let index = 1; index < sorted.length && !duplicates; index++)
    duplicates = (sorted[index - 1] as MatchInvoice).id === (sorted[index] as MatchInvoice).id
  if (!duplicates) return sorted
  const latest: MatchInvoice[] = []
  for (const invoice of sorted) {
    const current = latest[latest.length - 1]
    if (current?.id !== invoice.id) latest.push(invoice)
    else if (JSON.stringify(invoice) > JSON.stringify(current)) latest[latest.length - 1] = invoice
  }
  return latest
}

function invoiceId(invoice: MatchInvoice): string {
  return invoice.id
}

/**
 * The allocations, exceptions and invoice states of a closed set of invoices and transactions, as a pure function
 * of that set (rule 9): the order given and duplicates do not matter. Outflows that return an inflow are found
 * first (that inflow allocates nothing). Allocation then runs in one canonical order: manual matches of settled
 * money, references of settled money (weighed as evidence), then the same for pending money, then the payer's
 * exact amounts and suggestions for what no reference explains.
 */
export function matchPayments(input: MatchPaymentsInput): MatchPaymentsResult {
  const config = input.config ?? DEFAULT_MATCH_CONFIG
  const invoices = latestInvoices(input.invoices)
  const index = input.index ?? new InvoiceIndex(invoices, input.customers ?? [])
  const ledgers = new LedgerSet(invoices)
  const allocator = new Allocator(ledgers, config)
  const manualByTransaction: ReadonlyMap<string, ManualAllocation[]> = input.manualAllocations?.length
    ? manualsByTransaction(input.manualAllocations)
    : NO_MANUALS
  const rejected: ReadonlySet<string> = input.rejectedSuggestions?.length
    ? new Set(input.rejectedSuggestions.map((item) => suggestionKey(item.transactionId, item.invoiceIds)))
    : NOTHING_REJECTED
  const context = new MatchContext(allocator, ledgers, index, config, rejected)
  const dispositions = input.dispositions ?? []
  const { inflows, outflows } = activeOf(
    dispositions.length > 0
      ? withoutDisposed(input.transactions, disposedUnits(dispositions))
      : input.transactions,
  )
  const references = new Map<string, TransactionReferences>()
  const returns =
    outflows.length === 0
      ? []
      : findReturns({
          outflows,
          inflows: inflows.map(({ transaction }) => {
            const found = knownReferences(references, input.references, index, transaction)
            return {
              transaction,
              references: found,
              invoiceIds: [
                ...new Set([
                  ...(manualByTransaction.get(transaction.id) ?? []).map((item) => item.invoiceId),
                  ...referencedInvoiceIds(found),
                ]),
              ],
            }
          }),
          index,
          rejected,
          horizonDays: config.returnHorizonDays,
        })
  // A whole return: the inflow allocates nothing. A partial one is taken off its allocation afterwards.
  const whole = returns.length > 0 ? returns.filter((item) => !item.partial) : returns
  const returned: ReadonlySet<string> =
    whole.length > 0 ? new Set(whole.map((item) => item.inflowTransactionId)) : NOTHING_RETURNED
  for (const item of returns) {
    const outflow = outflows.find((transaction) => transaction.id === item.outflowTransactionId)
    if (outflow && !item.partial)
      raiseReturn(
        allocator,
        outflow,
        item,
        item.invoiceIds.filter((id) => ledgers.has(id)),
      )
  }
  const unreferenced: Payment[] = []
  for (const phase of PHASES) {
    // The inflows of this phase not returned, read in place (no list of them per phase).
    if (manualByTransaction.size > 0) {
      for (const payment of inflows) {
        if (payment.phase !== phase || returned.has(payment.transaction.id)) continue
        const manual = manualByTransaction.get(payment.transaction.id)
        if (manual) allocator.manual(payment, manual)
      }
    }
    for (const payment of inflows) {
      const { transaction } = payment
      if (payment.phase !== phase || returned.has(transaction.id) || manualByTransaction.has(transaction.id))
        continue
      const found = knownReferences(references, input.references, index, transaction)
      if (found.outcome === 'named') allocateByReference(context, payment, found)
      else unreferenced.push(payment)
    }
  }
  for (const payment of unreferenced) allocateByPayer(context, payment, NO_EVIDENCE)
  if (returns.length > 0) takeBackPartialReturns(allocator, ledgers, outflows, returns)
  if (dispositions.length > 0) {
    const credited = activeOf(input.transactions).inflows
    applyCredits(allocator, ledgers, new Map(credited.map((p) => [p.transaction.id, p])), dispositions)
  }
  if (manualByTransaction.size > 0) {
    for (const id of [...references.keys()]) {
      if (manualByTransaction.has(id) && !returned.has(id)) references.delete(id)
    }
  }
  return {
    allocations: allocator.allocations,
    exceptions: allocator.exceptions,
    invoices: ledgers.states(),
    references,
    returns,
  }
}
