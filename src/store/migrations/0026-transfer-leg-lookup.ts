import type { Kysely } from 'kysely'

/**
 * Matching reads with every transaction whether it is a transfer's leg (loadMatchTransactions): each side of a
 * leg is looked up by transaction id, so a company with many transfers does not scan them once per transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('transfer_legs_by_inflow')
    .on('transfer_legs')
    .column('inflow_transaction_id')
    .where('inflow_transaction_id', 'is not', null)
    .execute()
  await db.schema
    .createIndex('transfer_legs_by_outflow')
    .on('transfer_legs')
    .column('outflow_transaction_id')
    .where('outflow_transaction_id', 'is not', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('transfer_legs_by_outflow').execute()
  await db.schema.dropIndex('transfer_legs_by_inflow').execute()
}
