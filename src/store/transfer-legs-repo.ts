import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, TransferLegsTable, TransfersTable } from './database.js'

export type TransferLegsRow = Selectable<TransferLegsTable>
export type TransferWithLegs = Selectable<TransfersTable> & { legs: TransferLegsRow }

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

/** A transfer with its legs row; `legs` is null for a new transfer whose row the caller must register. */
export type TransferInScope = Selectable<TransfersTable> & {
  legs: TransferLegsRow | null
  /** Rejected, failed or cancelled: no leg is looked for unless its reference is among the keys. */
  ended: boolean
}

/**
 * The transfers whose legs may change: those whose reference is one of `keys` or that hold one of
 * `transactionIds` as a leg, every transfer still missing a leg that has not ended, and every new transfer (no
 * legs row yet), in one statement.
 */
export async function transfersInScope(
  db: Kysely<Database>,
  scope: { keys: readonly string[]; transactionIds: readonly string[] },
): Promise<TransferInScope[]> {
  const { rows } = await sql<TransferInScope>`
    select t.*, row_to_json(l.*) as legs, t.status in ('rejected', 'failed', 'cancelled') as ended
    from transfers t left join transfer_legs l on l.transfer_id = t.id
    where l.transfer_id is null
      or l.reference_key = any(${[...scope.keys]}::text[])
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
