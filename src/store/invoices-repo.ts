import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { Database, InvoicesTable, InvoiceStateTable } from './database.js'
import { anyOf } from './any-of.js'

export type InvoiceRow = Selectable<InvoicesTable>

/** What matching derived for an invoice (the matching store's invoice_state row). */
export type InvoiceStateColumns = Pick<
  Selectable<InvoiceStateTable>,
  'status' | 'amount_paid' | 'amount_pending' | 'amount_open' | 'amount_overpaid' | 'amount_written_off'
>

/** An invoice with its derived state; `state` is null until matching has looked at the invoice. */
export type InvoiceWithState = InvoiceRow & { state: InvoiceStateColumns | null }

/** An invoice as the caller gives it: amounts are decimal strings, dates ISO calendar dates. */
export type InvoiceWrite = {
  id: string
  number: string
  amount: string
  currency: string
  customerName?: string | null
  customerAliases?: readonly string[] | null
  issueDate?: string | null
  dueDate?: string | null
  entityId?: string | null
  accountId?: string | null
  metadata?: Record<string, unknown> | null
  customerId?: string | null
  paymentReference?: string | null
  earlyPaymentDiscount?: { percent: string; until: string } | null
  /** What matching looks the invoice up by, worked out by the caller (the store knows no matching rules). */
  keys: InvoiceKeys
}

/** An invoice's lookup keys, and the version of the rules that made them (stale versions are re-keyed). */
export type InvoiceKeys = {
  normalizedNumber: string
  customerKeys: string[]
  matchKeys: string[]
  version: number
}

/** `changed` is false when the stored invoice already had these fields (nothing written, version kept). */
export type InvoiceUpsertOutcome = { row: InvoiceRow; created: boolean; changed: boolean }

export type InvoiceListFilter = {
  /**
   * `void`: voided invoices. Any other status: live invoices with that derived status, where an invoice that
   * matching has not looked at yet is `open`.
   */
  status?: string
  /** A normalized customer name, matched against the normalized name and every alias. */
  customerKey?: string
  /** Keyset: only invoices whose id sorts after this one. */
  afterId?: string
  /** Page size; the caller asks for one more row than it shows to learn whether more follow. */
  limit: number
}

/** Runs inside the writing transaction with the ids actually written (created, changed or voided). */
export type InvoicesWrittenHook = (trx: Transaction<Database>, changedIds: string[]) => Promise<void>

/** 21 parameters a row: 1,000 rows stay well below PostgreSQL's 65,535 bind parameters. */
const ROWS_PER_STATEMENT = 1000

function toRow(invoice: InvoiceWrite, now: Date) {
  return {
    id: invoice.id,
    number: invoice.number,
    normalized_number: invoice.keys.normalizedNumber,
    amount: invoice.amount,
    currency: invoice.currency,
    customer_name: invoice.customerName ?? null,
    customer_aliases: [...(invoice.customerAliases ?? [])],
    customer_keys: invoice.keys.customerKeys,
    issue_date: invoice.issueDate ?? null,
    due_date: invoice.dueDate ?? null,
    entity_id: invoice.entityId ?? null,
    account_id: invoice.accountId ?? null,
    metadata: invoice.metadata == null ? null : JSON.stringify(invoice.metadata),
    customer_id: invoice.customerId ?? null,
    payment_reference: invoice.paymentReference ?? null,
    discount_percent: invoice.earlyPaymentDiscount?.percent ?? null,
    discount_until: invoice.earlyPaymentDiscount?.until ?? null,
    match_keys: invoice.keys.matchKeys,
    keys_version: invoice.keys.version,
    created_at: now,
    updated_at: now,
  }
}

const CALLER_COLUMNS = [
  'number',
  'normalized_number',
  'amount',
  'currency',
  'customer_name',
  'customer_aliases',
  'customer_keys',
  'issue_date',
  'due_date',
  'entity_id',
  'account_id',
  'metadata',
  'customer_id',
  'payment_reference',
  'discount_percent',
  'discount_until',
  'match_keys',
  'keys_version',
] as const

async function upsertChunk(
  trx: Transaction<Database>,
  invoices: readonly InvoiceWrite[],
  now: Date,
): Promise<InvoiceUpsertOutcome[]> {
  const written = await trx
    .insertInto('invoices')
    .values(invoices.map((invoice) => toRow(invoice, now)))
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({
          ...Object.fromEntries(CALLER_COLUMNS.map((column) => [column, eb.ref(`excluded.${column}`)])),
          voided_at: null,
          version: sql`invoices.version + 1`,
          updated_at: eb.ref('excluded.updated_at'),
        }))
        // Rewriting the same fields is no change: the version, updated_at and the matching hook stay untouched.
        // A void invoice written again is reinstated.
        .where(({ or, eb }) =>
          or([
            eb('invoices.voided_at', 'is not', null),
            sql<boolean>`(${sql.join(CALLER_COLUMNS.map((column) => sql.ref(`invoices.${column}`)))})
              is distinct from (${sql.join(CALLER_COLUMNS.map((column) => sql.ref(`excluded.${column}`)))})`,
          ]),
        ),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .execute()
  const byId = new Map(written.map((row) => [row.id, row]))
  const unchangedIds = invoices.map((invoice) => invoice.id).filter((id) => !byId.has(id))
  const unchanged =
    unchangedIds.length === 0
      ? []
      : await trx.selectFrom('invoices').selectAll().where('id', '=', anyOf(unchangedIds)).execute()
  const unchangedById = new Map(unchanged.map((row) => [row.id, row]))
  return invoices.map((invoice) => {
    const row = byId.get(invoice.id)
    if (row) {
      const { inserted, ...stored } = row
      return { row: stored, created: inserted, changed: true }
    }
    return { row: unchangedById.get(invoice.id)!, created: false, changed: false }
  })
}

/**
 * Inserts or updates invoices in one transaction: all are written or none. Ids must be distinct (the caller
 * validates); the outcomes come in the order given. `afterWrite` runs in the same transaction (an outbox).
 */
export async function upsertInvoices(
  db: Kysely<Database>,
  invoices: readonly InvoiceWrite[],
  now: Date,
  options: { afterWrite?: InvoicesWrittenHook; onProgress?: (written: number) => void } = {},
): Promise<InvoiceUpsertOutcome[]> {
  if (invoices.length === 0) return []
  return db.transaction().execute(async (trx) => {
    const outcomes: InvoiceUpsertOutcome[] = []
    for (let start = 0; start < invoices.length; start += ROWS_PER_STATEMENT) {
      outcomes.push(...(await upsertChunk(trx, invoices.slice(start, start + ROWS_PER_STATEMENT), now)))
      options.onProgress?.(outcomes.length)
    }
    const changed = outcomes.filter((outcome) => outcome.changed).map((outcome) => outcome.row.id)
    if (options.afterWrite && changed.length > 0) await options.afterWrite(trx, changed)
    return outcomes
  })
}

export async function upsertInvoice(
  db: Kysely<Database>,
  invoice: InvoiceWrite,
  now: Date,
  options: { afterWrite?: InvoicesWrittenHook } = {},
): Promise<InvoiceUpsertOutcome> {
  const [outcome] = await upsertInvoices(db, [invoice], now, options)
  return outcome!
}

function withState(db: Kysely<Database>) {
  return db
    .selectFrom('invoices')
    .leftJoin('invoice_state', 'invoice_state.invoice_id', 'invoices.id')
    .selectAll('invoices')
    .select([
      'invoice_state.status as state_status',
      'invoice_state.amount_paid as state_amount_paid',
      'invoice_state.amount_pending as state_amount_pending',
      'invoice_state.amount_open as state_amount_open',
      'invoice_state.amount_overpaid as state_amount_overpaid',
      'invoice_state.amount_written_off as state_amount_written_off',
    ])
}

type JoinedRow = InvoiceRow & {
  state_status: string | null
  state_amount_paid: string | null
  state_amount_pending: string | null
  state_amount_open: string | null
  state_amount_overpaid: string | null
  state_amount_written_off: string | null
}

function splitState(row: JoinedRow): InvoiceWithState {
  const {
    state_status: status,
    state_amount_paid: paid,
    state_amount_pending: pending,
    state_amount_open: open,
    state_amount_overpaid: overpaid,
    state_amount_written_off: writtenOff,
    ...invoice
  } = row
  const state =
    status === null
      ? null
      : {
          status,
          amount_paid: paid ?? '0',
          amount_pending: pending ?? '0',
          amount_open: open ?? invoice.amount,
          amount_overpaid: overpaid ?? '0',
          amount_written_off: writtenOff ?? '0',
        }
  return { ...invoice, state }
}

export async function getInvoice(db: Kysely<Database>, id: string): Promise<InvoiceWithState | undefined> {
  const row = await withState(db).where('invoices.id', '=', id).executeTakeFirst()
  return row && splitState(row)
}

/** The invoices with these ids that exist, in id order. */
export async function getInvoices(db: Kysely<Database>, ids: readonly string[]): Promise<InvoiceWithState[]> {
  if (ids.length === 0) return []
  const rows = await withState(db).where('invoices.id', '=', anyOf(ids)).orderBy('invoices.id').execute()
  return rows.map(splitState)
}

/** One keyset page ordered by id; ask for limit + 1 rows to learn whether more follow. */
export async function listInvoices(
  db: Kysely<Database>,
  filter: InvoiceListFilter,
): Promise<InvoiceWithState[]> {
  let query = withState(db)
  if (filter.status === 'void') {
    query = query.where('invoices.voided_at', 'is not', null)
  } else if (filter.status === 'open') {
    query = query
      .where('invoices.voided_at', 'is', null)
      .where((eb) => eb.or([eb('invoice_state.status', 'is', null), eb('invoice_state.status', '=', 'open')]))
  } else if (filter.status !== undefined) {
    query = query.where('invoices.voided_at', 'is', null).where('invoice_state.status', '=', filter.status)
  }
  if (filter.customerKey !== undefined) {
    query = query.where(sql<boolean>`invoices.customer_keys @> array[${filter.customerKey}]::text[]`)
  }
  if (filter.afterId !== undefined) query = query.where('invoices.id', '>', filter.afterId)
  const rows = await query.orderBy('invoices.id').limit(filter.limit).execute()
  return rows.map(splitState)
}

/**
 * Voids an invoice and keeps its row (a payment naming it is still recognised). Voiding a void invoice changes
 * nothing. Undefined when no invoice has this id. `afterWrite` runs in the same transaction when it changed.
 */
export async function voidInvoice(
  db: Kysely<Database>,
  id: string,
  now: Date,
  options: { afterWrite?: InvoicesWrittenHook } = {},
): Promise<{ changed: boolean } | undefined> {
  return db.transaction().execute(async (trx) => {
    const voided = await trx
      .updateTable('invoices')
      .set({ voided_at: now, updated_at: now, version: sql`version + 1` })
      .where('id', '=', id)
      .where('voided_at', 'is', null)
      .returning('id')
      .executeTakeFirst()
    if (voided) {
      await options.afterWrite?.(trx, [id])
      return { changed: true }
    }
    const exists = await trx.selectFrom('invoices').select('id').where('id', '=', id).executeTakeFirst()
    return exists && { changed: false }
  })
}

/** What an invoice's keys are made from, for invoices whose keys an older version of the rules made. */
export async function invoicesWithStaleKeys(
  db: Kysely<Database>,
  version: number,
  limit: number,
): Promise<
  Array<
    Pick<
      InvoiceRow,
      'id' | 'number' | 'customer_name' | 'customer_aliases' | 'payment_reference' | 'customer_keys'
    >
  >
> {
  return db
    .selectFrom('invoices')
    .select(['id', 'number', 'customer_name', 'customer_aliases', 'payment_reference', 'customer_keys'])
    .where('keys_version', '<', version)
    .orderBy('id')
    .limit(limit)
    .execute()
}

/** Replaces invoices' keys without touching their version or firing the matching hook: the facts did not change. */
export async function writeInvoiceKeys(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ id: string; keys: InvoiceKeys }>,
): Promise<void> {
  if (rows.length === 0) return
  // One statement for the batch: a re-key after an upgrade may touch every invoice.
  const values = rows.map(({ id, keys }) => ({
    id,
    normalized_number: keys.normalizedNumber,
    customer_keys: keys.customerKeys,
    match_keys: keys.matchKeys,
    keys_version: keys.version,
  }))
  await sql`
    update invoices set normalized_number = k.normalized_number, customer_keys = k.customer_keys,
      match_keys = k.match_keys, keys_version = k.keys_version
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as k(id text, normalized_number text, customer_keys text[], match_keys text[], keys_version smallint)
    where invoices.id = k.id
  `.execute(db)
}
