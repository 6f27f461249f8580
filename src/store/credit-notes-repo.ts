import { sql, type Kysely, type Selectable } from 'kysely'
import type { CreditNotesTable, CreditNoteStatus, Database } from './database.js'
import type { InvoiceRow } from './invoices-repo.js'

export type CreditNoteRow = Selectable<CreditNotesTable>

export type CreditNoteWrite = {
  id: string
  number: string
  amount: string
  currency: string
  customerId: string | null
  invoiceId: string
  account: string
  status: CreditNoteStatus
  madeBy: string
  madeByRole: string
}

/** Keeps an invoice's `credited` the sum of its credit notes in force (not waiting, not declined, not void). */
export async function recomputeCredited(db: Kysely<Database>, invoiceId: string): Promise<void> {
  await sql`update invoices set credited = coalesce((select sum(amount) from credit_notes
      where invoice_id = ${invoiceId} and voided_at is null and status = 'active'), 0)
    where id = ${invoiceId}`.execute(db)
}

/** An invoice row locked for the caller's transaction (credit notes of one invoice are written one at a time). */
export async function lockInvoice(db: Kysely<Database>, invoiceId: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).forUpdate().executeTakeFirst()
}

export async function getCreditNote(
  db: Kysely<Database>,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<CreditNoteRow | undefined> {
  const query = db.selectFrom('credit_notes').selectAll().where('id', '=', id)
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst()
}

export async function insertCreditNote(
  db: Kysely<Database>,
  note: CreditNoteWrite,
  now: Date,
): Promise<CreditNoteRow> {
  return db
    .insertInto('credit_notes')
    .values({
      id: note.id,
      number: note.number,
      amount: note.amount,
      currency: note.currency,
      customer_id: note.customerId,
      invoice_id: note.invoiceId,
      account: note.account,
      status: note.status,
      made_by: note.madeBy,
      made_by_role: note.madeByRole,
      in_force_at: note.status === 'active' ? now : null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Approves or declines a waiting credit note; undefined when it was not waiting any more. */
export async function decideCreditNote(
  db: Kysely<Database>,
  id: string,
  to: 'active' | 'declined',
  by: string,
  now: Date,
): Promise<CreditNoteRow | undefined> {
  return db
    .updateTable('credit_notes')
    .set({
      status: to,
      decided_by: by,
      decided_at: now,
      updated_at: now,
      version: sql`version + 1`,
      ...(to === 'active' ? { in_force_at: now } : {}),
    })
    .where('id', '=', id)
    .where('status', '=', 'pending_approval')
    .where('voided_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Voids a credit note in force (its row is kept); undefined when it was not in force any more. */
export async function voidCreditNote(
  db: Kysely<Database>,
  id: string,
  by: string,
  now: Date,
): Promise<CreditNoteRow | undefined> {
  return db
    .updateTable('credit_notes')
    .set({ voided_at: now, voided_by: by, updated_at: now, version: sql`version + 1` })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where('voided_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** What credit notes of an invoice waiting for approval would take of its open rest. */
export async function pendingCreditNotesOf(db: Kysely<Database>, invoiceId: string, exceptId: string | null) {
  let query = db
    .selectFrom('credit_notes')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'pending_approval')
    .where('voided_at', 'is', null)
  if (exceptId !== null) query = query.where('id', '<>', exceptId)
  return (await query.executeTakeFirstOrThrow()).total
}

/** A keyset page of credit notes in id order, optionally of one invoice. */
export async function listCreditNotes(
  db: Kysely<Database>,
  filter: { invoiceId?: string; afterId?: string; limit: number },
): Promise<CreditNoteRow[]> {
  let query = db.selectFrom('credit_notes').selectAll()
  if (filter.invoiceId) query = query.where('invoice_id', '=', filter.invoiceId)
  if (filter.afterId) query = query.where('id', '>', filter.afterId)
  return query.orderBy('id').limit(filter.limit).execute()
}
