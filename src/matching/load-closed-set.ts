import type { Kysely } from 'kysely'
import {
  findReferences,
  InvoiceIndex,
  invoiceUnits,
  referencedInvoiceIds,
  returnSignals,
  normalizeName,
  toUnits,
  transactionPhase,
  type MatchInvoice,
  type MatchTransaction,
  type PaymentDisposition,
  type RejectedSuggestion,
  type TransactionReferences,
} from '../matcher/index.js'
import {
  activeCustomerLinks,
  loadCustomersForMatching,
  loadInvoicesById,
  loadInvoicesForTexts,
  loadMatchTransactions,
  loadOpenInvoicesOfCustomers,
  transactionInputs,
  transactionsOfPayers,
  transactionsTouchingInvoices,
  transactionsWithCreditFor,
  type CustomerLinkRow,
  type CustomerRow,
  type Database,
  type HeldAllocationRow,
  type InvoiceRow,
  type ManualMatchInput,
  type MatchTransactionRow,
  type TransactionInputs,
} from '../store/index.js'
import { candidateKeys, customerPayerKeys, numberKey, payerKey, payerKeys } from './candidate-keys.js'
import { matchCustomerOf, matchInvoiceOf, matchTransactionOf } from './store-shapes.js'

/**
 * What a transaction's outcome depended on, as transaction_references records it: `named` (references whose
 * amounts it pays exactly), `named_payer` (references, and the customers' open invoices), `none` (no reference:
 * the payer's open invoices), `return` (an outflow that may return an inflow), `outflow`, `inactive`,
 * `transfer_leg`.
 */
export type ReferenceOutcome =
  'named' | 'named_payer' | 'none' | 'return' | 'outflow' | 'inactive' | 'transfer_leg'

/** A mirrored transaction of the set with what its reference fields hold. */
export type SetTransaction = {
  transaction: MatchTransaction
  candidateKeys: string[]
  payerKey: string | null
  payerKeys: string[]
  references: TransactionReferences
  outcome: ReferenceOutcome
  /** An active inflow that is no transfer leg: it takes part in invoice matching. */
  matchable: boolean
  transferLeg: boolean
}

/**
 * A closed set of the store (docs/matching.md, "Incremental use"): every transaction and invoice connected to the
 * seeds through references, allocations, manual matches, payers' open invoices and returns. The matcher's result
 * for it depends on nothing outside it.
 */
export type ClosedSet = {
  /** Every transaction id reached, mirrored or not. */
  transactionIds: Set<string>
  /** The reached transactions still in the mirror. */
  transactions: Map<string, SetTransaction>
  invoices: Map<string, MatchInvoice>
  /** invoices.version of each invoice of the set, as read. */
  invoiceVersions: Map<string, string>
  /** Every invoice and customer loaded: the set's and those the set's texts and payers could mean. */
  index: InvoiceIndex
  /** The allocations in force of the set's transactions, oldest first. */
  allocations: HeldAllocationRow[]
  /** A person's matches (the matcher's ManualAllocation, with who made each). */
  manualAllocations: ManualMatchInput[]
  rejectedSuggestions: RejectedSuggestion[]
  /** A person's dispositions in force of the set's transactions. */
  dispositions: PaymentDisposition[]
}

/** Where a walk starts: transactions and invoices, and the seed transactions' rows if the caller read them. */
export type ClosedSetSeeds = {
  transactionIds: Iterable<string>
  invoiceIds: Iterable<string>
  /** The rows of these seed transactions, read in the same transaction (a seed without one is not mirrored). */
  transactionRows?: { ids: readonly string[]; rows: readonly MatchTransactionRow[] }
}

/** Walks the store from the seeds until nothing new is reached. */
export async function loadClosedSet(db: Kysely<Database>, seeds: ClosedSetSeeds): Promise<ClosedSet> {
  const set: ClosedSet = {
    transactionIds: new Set(),
    transactions: new Map(),
    invoices: new Map(),
    invoiceVersions: new Map(),
    index: new InvoiceIndex(),
    allocations: [],
    manualAllocations: [],
    rejectedSuggestions: [],
    dispositions: [],
  }
  const walk = new Walk(db, set, seeds.transactionRows)
  let transactionQueue = [...new Set(seeds.transactionIds)]
  let invoiceQueue = [...new Set(seeds.invoiceIds)]
  while (transactionQueue.length > 0 || invoiceQueue.length > 0) {
    const newTransactions = transactionQueue.filter((id) => !set.transactionIds.has(id))
    transactionQueue = []
    for (const id of newTransactions) set.transactionIds.add(id)
    if (newTransactions.length > 0) {
      const reached = await walk.fromTransactions(newTransactions)
      invoiceQueue.push(...reached.invoiceIds)
      transactionQueue.push(...reached.transactionIds)
    }
    const newInvoices = [...new Set(invoiceQueue)].filter((id) => !set.invoices.has(id))
    invoiceQueue = []
    if (newInvoices.length > 0) transactionQueue.push(...(await walk.fromInvoices(newInvoices)))
  }
  set.allocations = walk.inputs.allocations.sort(byNumericId)
  set.manualAllocations = walk.inputs.manualMatches
  set.rejectedSuggestions = walk.inputs.rejectedSuggestions
  set.dispositions = walk.inputs.dispositions
    .sort(byNumericId)
    .map(({ transactionId, amount, kind, customerId }) => ({ transactionId, amount, kind, customerId }))
  return set
}

/** Rows with bigserial ids in the order they were made (as the store's `order by id`). */
function byNumericId(a: { id: string }, b: { id: string }): number {
  return BigInt(a.id) < BigInt(b.id) ? -1 : 1
}

/** The steps of one walk, with what it has loaded into the index so far. */
class Walk {
  /** Every invoice row the walk read, by id. */
  private readonly indexed = new Map<string, InvoiceRow>()
  private readonly customers = new Map<string, { row: CustomerRow; links: CustomerLinkRow[] }>()
  /** Transaction rows read before the walk, by id (null: read, not mirrored). */
  private readonly read = new Map<string, MatchTransactionRow | null>()
  /** What a person decided about the transactions walked: every step's, together. */
  readonly inputs: Omit<TransactionInputs, 'heldInvoiceIds' | 'returnIds'> = {
    allocations: [],
    manualMatches: [],
    rejectedSuggestions: [],
    dispositions: [],
  }

  constructor(
    private readonly db: Kysely<Database>,
    private readonly set: ClosedSet,
    read?: ClosedSetSeeds['transactionRows'],
  ) {
    for (const id of read?.ids ?? []) this.read.set(id, null)
    for (const row of read?.rows ?? []) this.read.set(row.id, row)
  }

  private async transactionRows(ids: readonly string[]): Promise<MatchTransactionRow[]> {
    const unread = ids.filter((id) => !this.read.has(id))
    const read = ids.flatMap((id) => this.read.get(id) ?? [])
    return unread.length === 0 ? read : [...read, ...(await loadMatchTransactions(this.db, unread))]
  }

  private addToIndex(rows: readonly InvoiceRow[]): void {
    for (const row of rows) {
      if (this.indexed.has(row.id)) continue
      this.indexed.set(row.id, row)
      this.set.index.upsert(matchInvoiceOf(row))
    }
  }

  /** Invoice rows by id: those the walk read already (by number, customer or payer), the rest from the store. */
  private async invoiceRows(ids: readonly string[]): Promise<InvoiceRow[]> {
    const unread = ids.filter((id) => !this.indexed.has(id))
    const read = ids.flatMap((id) => this.indexed.get(id) ?? [])
    return unread.length === 0 ? read : [...read, ...(await loadInvoicesById(this.db, unread))]
  }

  /** Customers by id, name, account and learned link, into the index (with what their links taught). */
  private async addCustomers(query: {
    ids: string[]
    nameKeys: string[]
    accountTails: string[]
    linkKeys: string[]
  }): Promise<void> {
    const rows = (await loadCustomersForMatching(this.db, query)).filter((row) => !this.customers.has(row.id))
    const links = await activeCustomerLinks(
      this.db,
      rows.map((row) => row.id),
    )
    for (const row of rows) {
      const own = links.filter((link) => link.customer_id === row.id)
      this.customers.set(row.id, { row, links: own })
      this.set.index.upsertCustomer(matchCustomerOf(row, own))
    }
  }

  /** The payer keys leading to an invoice's customer (for the payments whose outcome its open amount touched). */
  private invoicePayerKeys(row: InvoiceRow): string[] {
    const customer = row.customer_id ? this.customers.get(row.customer_id) : undefined
    if (customer) return customerPayerKeys(customer.row, customer.links)
    return row.customer_id ? [] : row.customer_keys.map((key) => `n:${key}`)
  }

  async fromInvoices(ids: string[]): Promise<string[]> {
    const rows = await this.invoiceRows(ids)
    this.addToIndex(rows)
    await this.addCustomers({
      ids: [...new Set(rows.flatMap((row) => row.customer_id ?? []))],
      nameKeys: [],
      accountTails: [],
      linkKeys: [],
    })
    for (const row of rows) {
      this.set.invoices.set(row.id, matchInvoiceOf(row))
      this.set.invoiceVersions.set(row.id, row.version)
    }
    const touching = await transactionsTouchingInvoices(this.db, {
      ids: rows.map((row) => row.id),
      matchKeys: [...new Set(rows.flatMap((row) => row.match_keys))],
      // A void invoice's customer name still makes its payers known customers.
      payerKeys: [...new Set(rows.flatMap((row) => this.invoicePayerKeys(row)))],
    })
    // Customer credit on account may pay these invoices.
    const credited = await transactionsWithCreditFor(this.db, [
      ...new Set(rows.flatMap((row) => row.customer_id ?? [])),
    ])
    return [...touching, ...credited]
  }

  /** Loads new transactions of the set; returns the invoices and transactions they reach. */
  async fromTransactions(
    ids: readonly string[],
  ): Promise<{ invoiceIds: string[]; transactionIds: string[] }> {
    const { db, set } = this
    const rows = await this.transactionRows(ids)
    const legs = new Set(rows.flatMap((row) => (row.transfer_leg ? [row.id] : [])))
    const loaded = rows.flatMap((row) => {
      const transaction = matchTransactionOf(row)
      return transaction
        ? [{ transaction, keys: candidateKeys(transaction), payer: payerKeys(transaction) }]
        : []
    })
    const allKeys = [...new Set(loaded.flatMap((item) => item.keys))]
    const payers = loaded.flatMap((item) => item.payer)
    const payerNames = [...new Set(payers.filter((key) => key.startsWith('n:')).map((key) => key.slice(2)))]
    // Who the payer is must not depend on which of its invoices the seeds reached (rule 9): the invoices naming
    // the payers come with those the texts name.
    const { named, naming } = await loadInvoicesForTexts(db, { numberKeys: allKeys, payerNames })
    this.addToIndex(named)
    this.addToIndex(naming)
    await this.addCustomers({
      // A number equal to a customer's id is that customer's number: load such customers too.
      ids: [...new Set([...named.flatMap((row) => row.customer_id ?? []), ...allKeys])],
      nameKeys: payerNames,
      accountTails: payers.filter((key) => key.startsWith('t:')).map((key) => key.slice(2)),
      linkKeys: payers.filter((key) => key.startsWith('l')).map((key) => key.slice(key.indexOf(':') + 1)),
    })
    const isInflow = (transaction: MatchTransaction) =>
      transactionPhase(transaction) !== 'inactive' &&
      toUnits(transaction.amount) > 0n &&
      !legs.has(transaction.id)
    // What may return the matchable inflows: read with the inputs, pushed after the loop's own finds as before.
    const inflows = loaded.filter((item) => isInflow(item.transaction))
    const inputs = await transactionInputs(db, ids, {
      payerKeys: inflows.flatMap((item) => item.payer),
      quotedKeys: inflows.flatMap((item) => quotedKeys(item.transaction).map((key) => key.slice(2))),
    })
    this.inputs.allocations.push(...inputs.allocations)
    this.inputs.manualMatches.push(...inputs.manualMatches)
    this.inputs.rejectedSuggestions.push(...inputs.rejectedSuggestions)
    this.inputs.dispositions.push(...inputs.dispositions)
    const invoiceIds = inputs.heldInvoiceIds
    // The invoices their customer credit on account may pay.
    const creditCustomers = inputs.dispositions.flatMap((row) =>
      row.kind === 'on_account' && row.customerId ? [row.customerId] : [],
    )
    const transactionIds: string[] = []
    const customerIds = new Set<string>()
    const nameKeys = new Set<string>()
    for (const { transaction, keys, payer } of loaded) {
      const phase = transactionPhase(transaction)
      const amount = toUnits(transaction.amount)
      const leg = legs.has(transaction.id)
      const matchable = isInflow(transaction)
      const outflow = phase !== 'inactive' && amount < 0n && !leg
      const references: TransactionReferences =
        matchable || outflow ? findReferences(set.index, transaction) : { outcome: 'none' }
      const named = referencedInvoiceIds(references)
      invoiceIds.push(...named)
      let outcome: ReferenceOutcome = leg ? 'transfer_leg' : phase === 'inactive' ? 'inactive' : 'outflow'
      const namedCustomerKeys: string[] = []
      if (matchable) {
        const invoices = named.map((id) => set.index.get(id) as MatchInvoice)
        const total = invoices.reduce((sum, invoice) => sum + invoiceUnits(invoice), 0n)
        const exact = invoices.length > 0 && total === amount && invoices.every((invoice) => !invoice.void)
        outcome = invoices.length === 0 ? 'none' : exact ? 'named' : 'named_payer'
        if (outcome !== 'named') {
          // The matcher may weigh the open invoices of the payer and of the named invoices' customers. A payer
          // recognised by name is found again by the payer's name key.
          const identity = set.index.customers.identify(
            transaction.counterpartyName,
            transaction.counterpartyAccountMasked,
          )
          for (const key of identity.customers) if (key.startsWith('c:')) customerIds.add(key.slice(2))
          for (const invoice of invoices) {
            if (invoice.customerId) customerIds.add(invoice.customerId)
            else if (invoice.customerName) nameKeys.add(normalizeName(invoice.customerName))
            // A new invoice of a named invoice's customer may change the outcome (the amount fits it): reach it.
            const customer = invoice.customerId ? this.customers.get(invoice.customerId) : undefined
            if (customer) namedCustomerKeys.push(...customer.row.name_keys.map((key) => `n:${key}`))
            else if (!invoice.customerId && invoice.customerName)
              namedCustomerKeys.push(`n:${normalizeName(invoice.customerName)}`)
          }
          const base = payerKey(transaction.counterpartyName)
          if (base) nameKeys.add(base)
        }
      } else if (outflow && (named.length > 0 || returnSignals(transaction).length > 0)) {
        // The inflows it may return: the same payer for the same amount, or quoting their reference for the same
        // amount or more (a partial return). Those whose invoices it names are reached through the invoices.
        outcome = 'return'
        const returned = { amount: String(transaction.amount).replace(/^-/, '') }
        transactionIds.push(...(await transactionsOfPayers(db, payer, returned)))
        transactionIds.push(
          ...(await transactionsOfPayers(
            db,
            keys.map((key) => `q:${key}`),
            { ...returned, orMore: true },
          )),
        )
      }
      set.transactions.set(transaction.id, {
        transaction,
        candidateKeys: keys,
        payerKey: payerKey(transaction.counterpartyName),
        payerKeys: matchable
          ? [...new Set([...payer, ...quotedKeys(transaction), ...namedCustomerKeys])]
          : outcome === 'return'
            ? payer
            : [],
        references,
        outcome,
        matchable,
        transferLeg: leg,
      })
    }
    // Outflows seen before the inflow they return (the same payer, or quoting its reference), and the two sides of
    // the returns these transactions are part of, removed or changed since: rule 9.
    transactionIds.push(...inputs.returnIds)
    for (const id of creditCustomers) customerIds.add(id)
    const open = await loadOpenInvoicesOfCustomers(db, { ids: [...customerIds], nameKeys: [...nameKeys] })
    this.addToIndex(open)
    invoiceIds.push(...open.map((row) => row.id))
    return { invoiceIds, transactionIds }
  }
}

/** An inflow's own references (6 characters or more), as the token runs a chargeback quoting them holds. */
function quotedKeys(transaction: MatchTransaction): string[] {
  return [transaction.paymentReference, transaction.bankReference, transaction.customerReference]
    .filter(
      (value): value is string => typeof value === 'string' && value.replace(/[^0-9A-Za-z]/g, '').length >= 6,
    )
    .map((value) => `q:${numberKey(value)}`)
}
