import type { Kysely } from 'kysely'

/**
 * Issue 16 (lump sums): a match from a remittance advice may close its invoice's rest as written off, the fee
 * the advice states (or a difference within the fee tolerance), with the reason to book it under.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('manual_matches')
    .addColumn('write_off', 'numeric')
    .addColumn('write_off_reason', 'text')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('manual_matches')
    .dropColumn('write_off')
    .dropColumn('write_off_reason')
    .execute()
}
