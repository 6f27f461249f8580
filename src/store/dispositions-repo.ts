import { sql, type Insertable, type Kysely, type Selectable } from 'kysely'
import type { Database, DispositionsTable } from './database.js'
import { anyOf } from './any-of.js'

export type DispositionRow = Selectable<DispositionsTable>
export type DispositionInsert = Omit<
  Insertable<DispositionsTable>,
  'id' | 'decided_by' | 'decided_at' | 'undone_by' | 'undone_at'
>

export async function insertDisposition(
  db: Kysely<Database>,
  row: DispositionInsert,
): Promise<DispositionRow> {
  return db.insertInto('dispositions').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findDisposition(db: Kysely<Database>, id: string): Promise<DispositionRow | undefined> {
  return db.selectFrom('dispositions').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The disposition in force or waiting for approval of an exception. */
export async function liveDispositionOf(
  db: Kysely<Database>,
  exceptionKey: string,
): Promise<DispositionRow | undefined> {
  return db
    .selectFrom('dispositions')
    .selectAll()
    .where('exception_key', '=', exceptionKey)
    .where('status', 'in', ['pending_approval', 'active'])
    .executeTakeFirst()
}

/** Moves a disposition from one status to another; false when it was not in `from` any more. */
export async function setDispositionStatus(
  db: Kysely<Database>,
  id: string,
  from: DispositionRow['status'],
  to: DispositionRow['status'],
  by: string,
  at: Date,
): Promise<boolean> {
  const who = to === 'undone' ? { undone_by: by, undone_at: at } : { decided_by: by, decided_at: at }
  const result = await db
    .updateTable('dispositions')
    .set({ status: to, ...who })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** The dispositions in force of some transactions (matching's input). */
export async function activeDispositionsOf(
  db: Kysely<Database>,
  transactionIds: readonly string[],
): Promise<Array<DispositionRow & { transaction_id: string; exception_key: string }>> {
  if (transactionIds.length === 0) return []
  return db
    .selectFrom('dispositions')
    .selectAll()
    .where('transaction_id', '=', anyOf(transactionIds))
    .where('status', '=', 'active')
    .orderBy('id')
    .$narrowType<{ transaction_id: string; exception_key: string }>()
    .execute()
}

/** Keeps an invoice's `written_off` the sum of its write-offs in force (migration 0021); matching reads it. */
export async function recomputeInvoiceWrittenOff(db: Kysely<Database>, invoiceId: string): Promise<void> {
  await sql`update invoices set written_off = coalesce((select sum(amount) from dispositions
      where invoice_id = ${invoiceId} and status = 'active'), 0)
    where id = ${invoiceId}`.execute(db)
}

/** What write-offs of an invoice waiting for approval hold of its open rest, but `exceptId`'s. */
export async function pendingInvoiceWriteOffs(
  db: Kysely<Database>,
  invoiceId: string,
  exceptId: string | null,
): Promise<string> {
  let query = db
    .selectFrom('dispositions')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'pending_approval')
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirstOrThrow()).total
}

/** The write-offs of an invoice's open rest, every status, newest first. */
export async function invoiceWriteOffsOf(db: Kysely<Database>, invoiceId: string): Promise<DispositionRow[]> {
  return db
    .selectFrom('dispositions')
    .selectAll()
    .where('invoice_id', '=', invoiceId)
    .orderBy('id', 'desc')
    .execute()
}

/** The transactions whose credit on account pays these customers' invoices. */
export async function transactionsWithCreditFor(
  db: Kysely<Database>,
  customerIds: readonly string[],
): Promise<string[]> {
  if (customerIds.length === 0) return []
  const rows = await db
    .selectFrom('dispositions')
    .select('transaction_id')
    .distinct()
    .where('kind', '=', 'on_account')
    .where('status', '=', 'active')
    .where('customer_id', '=', anyOf(customerIds))
    .$narrowType<{ transaction_id: string }>()
    .execute()
  return rows.map((row) => row.transaction_id)
}

export type DispositionFilter = {
  status?: DispositionRow['status']
  transactionId?: string
  invoiceId?: string
}

/** Dispositions newest first, `after` the last id of the previous page. */
export async function listDispositions(
  db: Kysely<Database>,
  filter: DispositionFilter,
  after: string | null,
  limit: number,
): Promise<DispositionRow[]> {
  let query = db.selectFrom('dispositions').selectAll()
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.transactionId) query = query.where('transaction_id', '=', filter.transactionId)
  if (filter.invoiceId) query = query.where('invoice_id', '=', filter.invoiceId)
  if (after) query = query.where('id', '<', after)
  return query.orderBy('id', 'desc').limit(limit).execute()
}
