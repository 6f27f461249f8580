import { Decimal } from 'decimal.js'
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely'
import type { CreditNotesTable, Database } from './database.js'
import type { InvoiceRow, InvoicesWrittenHook } from './invoices-repo.js'

export type CreditNoteRow = Selectable<CreditNotesTable>

export type CreditNoteWrite = {
  id: string
  number: string
  amount: string
  currency: string
  customerId: string | null
  invoiceId: string
}

/**
 * What the caller's rules say about a credit note against its invoice, given the other active credit notes'
 * total on it; an empty list writes it. Runs inside the writing transaction with the invoice row locked.
 */
export type CreditNoteCheck = (
  invoice: InvoiceRow | undefined,
  othersTotal: string,
) => Array<{ path: string; message: string }>

export type CreditNoteUpsertOutcome =
  | { ok: true; row: CreditNoteRow; created: boolean; changed: boolean }
  | { ok: false; problems: Array<{ path: string; message: string }> }

const FIELDS = ['number', 'amount', 'currency', 'customer_id', 'invoice_id'] as const

/** Keeps an invoice's `credited` the sum of its active credit notes, and tells matching about the change. */
async function recomputeCredited(trx: Transaction<Database>, invoiceIds: readonly string[]): Promise<void> {
  for (const invoiceId of new Set(invoiceIds)) {
    await sql`update invoices set credited = coalesce((select sum(amount) from credit_notes
        where invoice_id = ${invoiceId} and voided_at is null), 0)
      where id = ${invoiceId}`.execute(trx)
  }
}

/**
 * Inserts or updates a credit note and its invoice's credited sum in one transaction, if `check` finds nothing
 * wrong; `afterWrite` (matching's outbox) gets the invoices concerned (a moved note concerns both).
 */
export async function upsertCreditNote(
  db: Kysely<Database>,
  note: CreditNoteWrite,
  now: Date,
  check: CreditNoteCheck,
  options: { afterWrite?: InvoicesWrittenHook } = {},
): Promise<CreditNoteUpsertOutcome> {
  return db.transaction().execute(async (trx) => {
    const invoice = await trx
      .selectFrom('invoices')
      .selectAll()
      .where('id', '=', note.invoiceId)
      .forUpdate()
      .executeTakeFirst()
    const { total } = await trx
      .selectFrom('credit_notes')
      .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
      .where('invoice_id', '=', note.invoiceId)
      .where('voided_at', 'is', null)
      .where('id', '<>', note.id)
      .executeTakeFirstOrThrow()
    const problems = check(invoice, total)
    if (problems.length > 0) return { ok: false, problems }
    const before = await trx
      .selectFrom('credit_notes')
      .selectAll()
      .where('id', '=', note.id)
      .forUpdate()
      .executeTakeFirst()
    const values = {
      number: note.number,
      amount: note.amount,
      currency: note.currency,
      customer_id: note.customerId,
      invoice_id: note.invoiceId,
    }
    const same =
      before !== undefined &&
      before.voided_at === null &&
      FIELDS.every((field) =>
        field === 'amount'
          ? new Decimal(before.amount).equals(values.amount)
          : before[field] === values[field],
      )
    if (same) return { ok: true, row: before, created: false, changed: false }
    const row = before
      ? await trx
          .updateTable('credit_notes')
          .set({ ...values, voided_at: null, updated_at: now, version: sql`version + 1` })
          .where('id', '=', note.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto('credit_notes')
          .values({ id: note.id, ...values, created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow()
    const invoices = [note.invoiceId, ...(before ? [before.invoice_id] : [])]
    await recomputeCredited(trx, invoices)
    await options.afterWrite?.(trx, [...new Set(invoices)])
    return { ok: true, row, created: !before, changed: true }
  })
}

/** Voids a credit note (its row is kept); undefined when there is none with this id. */
export async function voidCreditNote(
  db: Kysely<Database>,
  id: string,
  now: Date,
  options: { afterWrite?: InvoicesWrittenHook } = {},
): Promise<CreditNoteRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('credit_notes')
      .set({ voided_at: now, updated_at: now, version: sql`version + 1` })
      .where('id', '=', id)
      .where('voided_at', 'is', null)
      .returningAll()
      .executeTakeFirst()
    if (!row) return trx.selectFrom('credit_notes').selectAll().where('id', '=', id).executeTakeFirst()
    await recomputeCredited(trx, [row.invoice_id])
    await options.afterWrite?.(trx, [row.invoice_id])
    return row
  })
}

export async function getCreditNote(db: Kysely<Database>, id: string): Promise<CreditNoteRow | undefined> {
  return db.selectFrom('credit_notes').selectAll().where('id', '=', id).executeTakeFirst()
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
