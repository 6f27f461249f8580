import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, TransferLegsTable, TransfersTable } from './database.js'

export type TransferLegsRow = Selectable<TransferLegsTable>
export type TransferWithLegs = Selectable<TransfersTable> & { legs: TransferLegsRow }

/** Transfers that have no legs row yet (new ones), for the caller to register with their reference key. */
export async function transfersWithoutLegs(
  db: Kysely<Database>,
): Promise<Array<{ id: string; client_reference: string }>> {
  return db
    .selectFrom('transfers')
    .select(['transfers.id', 'transfers.client_reference'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('transfer_legs').select('transfer_id').whereRef('transfer_id', '=', 'transfers.id'),
        ),
      ),
    )
    .execute()
}

export async function registerTransferLegs(
  db: Kysely<Database>,
  rows: ReadonlyArray<{ transferId: string; referenceKey: string }>,
  at: Date,
): Promise<void> {
  if (rows.length === 0) return
  await db
    .insertInto('transfer_legs')
    .values(
      rows.map((row) => ({ transfer_id: row.transferId, reference_key: row.referenceKey, updated_at: at })),
    )
    .onConflict((oc) => oc.column('transfer_id').doNothing())
    .execute()
}

/**
 * The transfers whose legs may change: those whose reference is one of `keys` or that hold one of
 * `transactionIds` as a leg, and every transfer still missing a leg that has not failed.
 */
export async function transfersInScope(
  db: Kysely<Database>,
  scope: { keys: readonly string[]; transactionIds: readonly string[] },
): Promise<TransferWithLegs[]> {
  const { rows } = await sql<Selectable<TransfersTable> & { legs: TransferLegsRow }>`
    select t.*, row_to_json(l.*) as legs
    from transfer_legs l join transfers t on t.id = l.transfer_id
    where l.reference_key = any(${[...scope.keys]}::text[])
      or l.inflow_transaction_id = any(${[...scope.transactionIds]}::uuid[])
      or l.outflow_transaction_id = any(${[...scope.transactionIds]}::uuid[])
      or ((l.inflow_transaction_id is null or l.outflow_transaction_id is null)
        and t.status not in ('rejected', 'failed', 'cancelled'))
    order by t.id
  `.execute(db)
  return rows
}

/** Transactions whose reference fields hold one of `keys` as a run of tokens. */
export async function transactionsWithKeys(db: Kysely<Database>, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return []
  const rows = await db
    .selectFrom('transaction_references')
    .select('transaction_id')
    .where(sql<boolean>`candidate_keys && ${[...keys]}::text[]`)
    .execute()
  return rows.map((row) => row.transaction_id)
}

export async function saveTransferLegs(
  db: Kysely<Database>,
  transferId: string,
  legs: { outflow: string | null; inflow: string | null; matchedAt: Date | null },
  at: Date,
): Promise<void> {
  await db
    .updateTable('transfer_legs')
    .set({
      outflow_transaction_id: legs.outflow,
      inflow_transaction_id: legs.inflow,
      legs_matched_at: legs.matchedAt,
      updated_at: at,
    })
    .where('transfer_id', '=', transferId)
    .execute()
}
