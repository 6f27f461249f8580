import type { Insertable, Kysely, Selectable } from 'kysely'
import type { Database, RemittanceImportsTable } from './database.js'

export type RemittanceImportRow = Selectable<RemittanceImportsTable>
export type RemittanceImportInsert = Omit<
  Insertable<RemittanceImportsTable>,
  'id' | 'decided_by' | 'decided_at'
>

export async function insertRemittanceImport(
  db: Kysely<Database>,
  row: RemittanceImportInsert,
): Promise<RemittanceImportRow> {
  return db.insertInto('remittance_imports').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findRemittanceImport(
  db: Kysely<Database>,
  id: string,
): Promise<RemittanceImportRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined
  return db.selectFrom('remittance_imports').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Decides a waiting import; false when it was not waiting any more. */
export async function decideRemittanceImport(
  db: Kysely<Database>,
  id: string,
  to: 'active' | 'declined',
  by: string,
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('remittance_imports')
    .set({ status: to, decided_by: by, decided_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending_approval')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** A payment's imports waiting for approval. */
export async function pendingRemittanceImportsOf(
  db: Kysely<Database>,
  transactionId: string,
): Promise<RemittanceImportRow[]> {
  return db
    .selectFrom('remittance_imports')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('status', '=', 'pending_approval')
    .execute()
}
