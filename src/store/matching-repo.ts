import { sql, type Kysely, type Selectable } from 'kysely'
import type {
  Database,
  DispositionsTable,
  InvoiceStateTable,
  MatchExceptionsTable,
  TransactionsTable,
} from './database.js'
import type { AllocationRow } from './allocations-repo.js'
import { anyOf } from './any-of.js'

export type InvoiceStateRow = Selectable<InvoiceStateTable>
export type MatchExceptionRow = Selectable<MatchExceptionsTable>
export type MatchTransactionRow = Selectable<TransactionsTable> & {
  entity_id: string | null
  /** A leg of a transfer bankrec initiated (transfer_legs holds it), as of this read. */
  transfer_leg: boolean
}

/** Mirrored transactions by id, with the entity of their connection and whether they are a transfer's leg. */
/** Whether the transaction `id` names is a leg of a transfer: a column of every row matching reads. */
export function isTransferLeg(id: string) {
  return sql<boolean>`exists (select 1 from transfer_legs l
    where l.inflow_transaction_id = ${sql.ref(id)} or l.outflow_transaction_id = ${sql.ref(id)})`
}

export async function loadMatchTransactions(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<MatchTransactionRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('transactions')
    .leftJoin('connections', 'connections.id', 'transactions.connection_id')
    .selectAll('transactions')
    .select('connections.entity_id')
    .select(isTransferLeg('transactions.id').as('transfer_leg'))
    .where('transactions.id', '=', anyOf(ids))
    .execute()
}

/**
 * The transactions whose matching depends on these invoices: those that named or may now name them (by match
 * key), that hold allocations or manual matches to them, and the payments of their customers whose outcome
 * depended on the customer's open invoices (`payerKeys`: the customers' payer keys).
 */
export async function transactionsTouchingInvoices(
  db: Kysely<Database>,
  invoices: { ids: readonly string[]; matchKeys: readonly string[]; payerKeys: readonly string[] },
): Promise<string[]> {
  if (invoices.ids.length === 0) return []
  const ids = [...invoices.ids]
  const { rows } = await sql<{ id: string }>`
    select transaction_id::text as id from transaction_references
    where invoice_ids && ${ids}::text[]
      or candidate_keys && ${[...invoices.matchKeys]}::text[]
      or (outcome in ('none', 'named_payer') and payer_keys && ${[...invoices.payerKeys]}::text[])
    union select transaction_id::text from allocations where invoice_id = any(${ids}::text[]) and reversed_at is null
    union select transaction_id::text from manual_matches where invoice_id = any(${ids}::text[]) and removed_at is null
  `.execute(db)
  return rows.map((row) => row.id)
}

export type ManualMatchInput = {
  transactionId: string
  invoiceId: string
  amount: string
  /** Who made it; null on matches older than named users. */
  actor: string | null
  actorRole: string | null
  /** From a remittance advice: the invoice's rest up to this much is written off with `writeOffReason`. */
  writeOff?: string | null
  writeOffReason?: string | null
}

/** A person's matches in force of these transactions, as a JSON array of ManualMatchInput (amounts as text). */
function manualMatchesJson(transactionIds: readonly string[]) {
  return sql<ManualMatchInput[]>`(
    select coalesce(json_agg(json_build_object(
      'transactionId', transaction_id::text, 'invoiceId', invoice_id, 'amount', amount::text, 'actor', actor,
      'actorRole', actor_role, 'writeOff', write_off::text, 'writeOffReason', write_off_reason)), '[]'::json)
    from manual_matches where transaction_id = any(${[...transactionIds]}::uuid[]) and removed_at is null
  )`
}

export async function loadManualMatches(
  db: Kysely<Database>,
  transactionIds: readonly string[],
): Promise<ManualMatchInput[]> {
  if (transactionIds.length === 0) return []
  const { rows } = await sql<{ manual: ManualMatchInput[] }>`
    select ${manualMatchesJson(transactionIds)} as manual
  `.execute(db)
  return rows[0]?.manual ?? []
}

/** An allocation in force as a matching walk reads it: the row without its dates. */
export type HeldAllocationRow = Omit<AllocationRow, 'created_at' | 'reversed_at' | 'reversal_reason'>

/** What a walk step of matching reads about its transactions, besides their rows. */
export type TransactionInputs = {
  /** Invoices they named, hold allocations to or are matched to by a person. */
  heldInvoiceIds: string[]
  /** Their allocations in force, oldest first. */
  allocations: HeldAllocationRow[]
  manualMatches: ManualMatchInput[]
  rejectedSuggestions: Array<{ transactionId: string; invoiceIds: string[] }>
  /** A person's dispositions in force, in the order they were made. */
  dispositions: Array<{
    id: string
    transactionId: string
    amount: string
    kind: DispositionsTable['kind']
    customerId: string | null
  }>
  /** The outflows that may return them, or that they (outflows) returned: see returnsOfPayments. */
  returnIds: string[]
}

/**
 * The invoices transactions hold, their allocations in force, a person's matches, rejections and dispositions of
 * them, and the outflows that may return them (returnsOfPayments, keyed by `returnKeys`), in one statement.
 */
export async function transactionInputs(
  db: Kysely<Database>,
  transactionIds: readonly string[],
  returnKeys: { payerKeys: readonly string[]; quotedKeys: readonly string[] },
): Promise<TransactionInputs> {
  if (transactionIds.length === 0)
    return {
      heldInvoiceIds: [],
      allocations: [],
      manualMatches: [],
      rejectedSuggestions: [],
      dispositions: [],
      returnIds: [],
    }
  const ids = [...transactionIds]
  const { rows } = await sql<TransactionInputs>`
    select
      ${returnsOfPayments({ paymentIds: ids, ...returnKeys })} as "returnIds",
      array(
        select unnest(invoice_ids) from transaction_references where transaction_id = any(${ids}::uuid[])
        union select invoice_id from allocations where transaction_id = any(${ids}::uuid[]) and reversed_at is null
        union select invoice_id from manual_matches where transaction_id = any(${ids}::uuid[]) and removed_at is null
      ) as "heldInvoiceIds",
      (select coalesce(json_agg(json_build_object('id', id::text, 'transaction_id', transaction_id::text,
          'invoice_id', invoice_id, 'amount', amount::text, 'write_off', write_off::text,
          'write_off_reason', write_off_reason, 'write_off_account', write_off_account, 'settled', settled,
          'rule', rule, 'field', field, 'matched_reference', matched_reference, 'via', via,
          'confidence', confidence, 'made_by', made_by, 'actor', actor, 'evidence', evidence) order by id), '[]'::json)
        from allocations where transaction_id = any(${ids}::uuid[]) and reversed_at is null) as "allocations",
      ${manualMatchesJson(ids)} as "manualMatches",
      (select coalesce(json_agg(json_build_object('transactionId', transaction_id::text, 'invoiceIds', invoice_ids)),
          '[]'::json)
        from rejected_suggestions where transaction_id = any(${ids}::uuid[])) as "rejectedSuggestions",
      (select coalesce(json_agg(json_build_object('id', id::text, 'transactionId', transaction_id::text,
          'amount', amount::text, 'kind', kind, 'customerId', customer_id) order by id), '[]'::json)
        from dispositions where transaction_id = any(${ids}::uuid[]) and status = 'active') as "dispositions"
  `.execute(db)
  return rows[0]!
}

export type TransactionReferencesWrite = {
  transactionId: string
  outcome: string
  invoiceIds: string[]
  candidateKeys: string[]
  payerKey: string | null
  payerKeys: string[]
}

/**
 * Transactions whose payer keys share one of `keys` (a customer changed, or an outflow may return them), of
 * exactly `amount`, or with `orMore` of at least `amount` (an outflow may return part of them).
 */
export async function transactionsOfPayers(
  db: Kysely<Database>,
  keys: readonly string[],
  options: { amount?: string; orMore?: boolean } = {},
): Promise<string[]> {
  if (keys.length === 0) return []
  const compare = options.orMore ? sql`>=` : sql`=`
  const { rows } = await sql<{ id: string }>`
    select r.transaction_id::text as id from transaction_references r
    ${options.amount === undefined ? sql`` : sql`join transactions t on t.id = r.transaction_id`}
    where r.payer_keys && ${[...keys]}::text[]
    ${options.amount === undefined ? sql`` : sql`and t.amount ${compare} ${options.amount}::numeric`}
  `.execute(db)
  return rows.map((row) => row.id)
}

/** Queues matching for the payments whose payer keys include one of `keys` (a customer's names, accounts, links). */
export async function enqueuePaymentsOfPayers(db: Kysely<Database>, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return
  await sql`
    insert into pending_matches (kind, entity_id)
    select 'transaction', transaction_id::text from transaction_references where payer_keys && ${[...keys]}::text[]
  `.execute(db)
}

/**
 * Outflows that may return these payments: read as possible returns, of a payer among `payerKeys` or with a text
 * holding one of `quotedKeys`; and, by the open `payment_returned` exceptions, the outflows that returned one of
 * `paymentIds` and the inflows one of them (an outflow) returned; and the outflows whose partial return of one of
 * `paymentIds` is an open `ambiguous_reference` (key `ambiguous_reference:<outflow>:return-of-<inflow>`).
 */
function returnsOfPayments(keys: {
  paymentIds: readonly string[]
  payerKeys: readonly string[]
  quotedKeys: readonly string[]
}) {
  return sql<string[]>`array(
    select transaction_id::text as id from transaction_references
    where outcome = 'return'
      and (payer_keys && ${[...keys.payerKeys]}::text[] or candidate_keys && ${[...keys.quotedKeys]}::text[])
    union select transaction_id::text from match_exceptions
    where type = 'payment_returned' and resolved_at is null
      and split_part(key, ':', 3) = any(${[...keys.paymentIds]}::text[])
    union select split_part(key, ':', 3) from match_exceptions
    where type = 'payment_returned' and resolved_at is null
      and transaction_id::text = any(${[...keys.paymentIds]}::text[])
    union select transaction_id::text from match_exceptions
    where type = 'ambiguous_reference' and resolved_at is null
      and split_part(key, ':', 3) = any(${keys.paymentIds.map((id) => `return-of-${id}`)}::text[])
  )`
}

export async function saveTransactionReferences(
  db: Kysely<Database>,
  rows: readonly TransactionReferencesWrite[],
  at: Date,
): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto('transaction_references')
      .values(
        rows.slice(start, start + 500).map((row) => ({
          transaction_id: row.transactionId,
          outcome: row.outcome,
          invoice_ids: row.invoiceIds,
          candidate_keys: row.candidateKeys,
          payer_key: row.payerKey,
          payer_keys: row.payerKeys,
          updated_at: at,
        })),
      )
      .onConflict((oc) =>
        oc.column('transaction_id').doUpdateSet((eb) => ({
          outcome: eb.ref('excluded.outcome'),
          invoice_ids: eb.ref('excluded.invoice_ids'),
          candidate_keys: eb.ref('excluded.candidate_keys'),
          payer_key: eb.ref('excluded.payer_key'),
          payer_keys: eb.ref('excluded.payer_keys'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }
}

export async function deleteTransactionReferences(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('transaction_references').where('transaction_id', '=', anyOf(ids)).execute()
}

export async function loadInvoiceStates(
  db: Kysely<Database>,
  invoiceIds: readonly string[],
): Promise<InvoiceStateRow[]> {
  if (invoiceIds.length === 0) return []
  return db.selectFrom('invoice_state').selectAll().where('invoice_id', '=', anyOf(invoiceIds)).execute()
}

export async function saveInvoiceStates(
  db: Kysely<Database>,
  rows: ReadonlyArray<Omit<InvoiceStateRow, 'updated_at'> & { updated_at: Date }>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto('invoice_state')
      .values(rows.slice(start, start + 500))
      .onConflict((oc) =>
        oc.column('invoice_id').doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          amount_paid: eb.ref('excluded.amount_paid'),
          amount_pending: eb.ref('excluded.amount_pending'),
          amount_open: eb.ref('excluded.amount_open'),
          amount_overpaid: eb.ref('excluded.amount_overpaid'),
          amount_written_off: eb.ref('excluded.amount_written_off'),
          status_changes: eb.ref('excluded.status_changes'),
          invoice_version: eb.ref('excluded.invoice_version'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }
}

/** Exceptions that are open for these transactions (of the invoice side), or carry one of `keys`. */
export async function loadExceptionsInScope(
  db: Kysely<Database>,
  scope: { transactionIds: readonly string[]; keys: readonly string[]; transferIds?: readonly string[] },
): Promise<MatchExceptionRow[]> {
  const { transactionIds, keys } = scope
  const transferIds = scope.transferIds ?? []
  if (transactionIds.length === 0 && keys.length === 0 && transferIds.length === 0) return []
  return db
    .selectFrom('match_exceptions')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([
          eb('resolved_at', 'is', null),
          eb('type', '!=', 'transfer_leg_missing'),
          sql<boolean>`transaction_id = any(${[...transactionIds]}::uuid[])`,
        ]),
        eb.and([eb('resolved_at', 'is', null), sql<boolean>`transfer_id = any(${[...transferIds]}::text[])`]),
        sql<boolean>`key = any(${[...keys]}::text[])`,
      ]),
    )
    .execute()
}
