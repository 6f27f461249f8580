import type { Kysely } from 'kysely'
import {
  findReferences,
  InvoiceIndex,
  toUnits,
  transactionPhase,
  type MatchInvoice,
  type MatchTransaction,
  type RejectedSuggestion,
  type TransactionReferences,
} from '../matcher/index.js'
import {
  invoicesHeldByTransactions,
  loadInvoicesById,
  loadInvoicesByNumberKeys,
  loadManualMatches,
  loadMatchTransactions,
  loadOpenInvoicesOfPayers,
  loadRejectedSuggestions,
  transactionsTouchingInvoices,
  transferLegTransactions,
  type Database,
  type InvoiceRow,
  type ManualMatchInput,
} from '../../store/index.js'
import { candidateKeys, numberKey, payerKey } from './candidate-keys.js'
import { matchInvoiceOf, matchTransactionOf } from './store-shapes.js'

/** A mirrored transaction of the set with what its reference fields hold. */
export type SetTransaction = {
  transaction: MatchTransaction
  candidateKeys: string[]
  payerKey: string | null
  references: TransactionReferences
  /** An active inflow that is no transfer leg: it takes part in invoice matching. */
  matchable: boolean
  transferLeg: boolean
}

/**
 * A closed set of the store (docs/matching.md, "Incremental use"): every transaction and invoice connected to the
 * seeds through references, allocations, manual matches and payers' open invoices. The matcher's result for it
 * depends on nothing outside it.
 */
export type ClosedSet = {
  /** Every transaction id reached, mirrored or not. */
  transactionIds: Set<string>
  /** The reached transactions still in the mirror. */
  transactions: Map<string, SetTransaction>
  invoices: Map<string, MatchInvoice>
  /** invoices.version of each invoice of the set, as read. */
  invoiceVersions: Map<string, string>
  /** Every invoice loaded: the set's and those the set's texts could name. */
  index: InvoiceIndex
  /** A person's matches (the matcher's ManualAllocation, with who made each). */
  manualAllocations: ManualMatchInput[]
  rejectedSuggestions: RejectedSuggestion[]
}

function invoiceIdsOf(references: TransactionReferences): string[] {
  if (references.outcome === 'named') return references.invoices.map((item) => item.invoiceId)
  if (references.outcome === 'ambiguous') return references.invoiceIds
  return []
}

/** Walks the store from the seeds until nothing new is reached. */
export async function loadClosedSet(
  db: Kysely<Database>,
  seeds: { transactionIds: Iterable<string>; invoiceIds: Iterable<string> },
): Promise<ClosedSet> {
  const set: ClosedSet = {
    transactionIds: new Set(),
    transactions: new Map(),
    invoices: new Map(),
    invoiceVersions: new Map(),
    index: new InvoiceIndex(),
    manualAllocations: [],
    rejectedSuggestions: [],
  }
  const indexed = new Set<string>()
  const addToIndex = (rows: readonly InvoiceRow[]) => {
    for (const row of rows) {
      if (indexed.has(row.id)) continue
      indexed.add(row.id)
      set.index.upsert(matchInvoiceOf(row))
    }
  }
  let transactionQueue = [...new Set(seeds.transactionIds)]
  let invoiceQueue = [...new Set(seeds.invoiceIds)]
  while (transactionQueue.length > 0 || invoiceQueue.length > 0) {
    const newTransactions = transactionQueue.filter((id) => !set.transactionIds.has(id))
    transactionQueue = []
    for (const id of newTransactions) set.transactionIds.add(id)
    if (newTransactions.length > 0) {
      const reached = await reachFromTransactions(db, set, newTransactions, addToIndex)
      invoiceQueue.push(...reached)
    }
    const newInvoices = [...new Set(invoiceQueue)].filter((id) => !set.invoices.has(id))
    invoiceQueue = []
    if (newInvoices.length > 0) {
      const rows = await loadInvoicesById(db, newInvoices)
      addToIndex(rows)
      for (const row of rows) {
        set.invoices.set(row.id, matchInvoiceOf(row))
        set.invoiceVersions.set(row.id, row.version)
      }
      const touching = await transactionsTouchingInvoices(db, {
        ids: rows.map((row) => row.id),
        numberKeys: [...new Set(rows.map((row) => numberKey(row.number)))],
        customerKeys: [
          ...new Set(rows.filter((row) => row.voided_at === null).flatMap((row) => row.customer_keys)),
        ],
      })
      transactionQueue.push(...touching)
    }
  }
  const ids = [...set.transactionIds]
  set.manualAllocations = await loadManualMatches(db, ids)
  set.rejectedSuggestions = await loadRejectedSuggestions(db, ids)
  return set
}

/** Loads new transactions of the set; returns the invoices they reach. */
async function reachFromTransactions(
  db: Kysely<Database>,
  set: ClosedSet,
  ids: readonly string[],
  addToIndex: (rows: readonly InvoiceRow[]) => void,
): Promise<string[]> {
  const rows = await loadMatchTransactions(db, ids)
  const legs = await transferLegTransactions(db, ids)
  const loaded = rows.flatMap((row) => {
    const transaction = matchTransactionOf(row)
    return transaction ? [{ transaction, keys: candidateKeys(transaction) }] : []
  })
  addToIndex(await loadInvoicesByNumberKeys(db, [...new Set(loaded.flatMap((item) => item.keys))]))
  const reached = await invoicesHeldByTransactions(db, ids)
  const payers = new Set<string>()
  for (const { transaction, keys } of loaded) {
    const matchable =
      transactionPhase(transaction) !== 'inactive' &&
      toUnits(transaction.amount) > 0n &&
      !legs.has(transaction.id)
    const references: TransactionReferences = matchable
      ? findReferences(set.index, transaction)
      : { outcome: 'none' }
    const payer = payerKey(transaction.counterpartyName)
    set.transactions.set(transaction.id, {
      transaction,
      candidateKeys: keys,
      payerKey: payer,
      references,
      matchable,
      transferLeg: legs.has(transaction.id),
    })
    reached.push(...invoiceIdsOf(references))
    if (matchable && references.outcome === 'none' && payer) payers.add(payer)
  }
  const payerInvoices = await loadOpenInvoicesOfPayers(db, [...payers])
  addToIndex(payerInvoices)
  reached.push(...payerInvoices.map((row) => row.id))
  return reached
}
