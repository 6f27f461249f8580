import { sql, type Kysely } from 'kysely'

/**
 * Matching's outbox takes a sync page as one row (issue 29): `transaction_ids` holds the page's touched
 * transactions in order, where `entity_id` holds one entity. 500 rows a page cost PostgreSQL about a sixth of the
 * page statement's work (a heap and an index insert and their WAL each); one row of an out-of-line array costs a
 * few TOAST chunks. EXTERNAL: random uuids do not compress, so compressing is not tried.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('pending_matches')
    .addColumn('transaction_ids', sql`uuid[]`)
    .alterColumn('entity_id', (c) => c.dropNotNull())
    .execute()
  await sql`alter table pending_matches alter column transaction_ids set storage external`.execute(db)
  await db.schema
    .alterTable('pending_matches')
    .addCheckConstraint(
      'pending_matches_one_shape',
      sql`case when transaction_ids is null then entity_id is not null
        else entity_id is null and kind = 'transaction' and cardinality(transaction_ids) > 0 end`,
    )
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into pending_matches (kind, entity_id, queued_at)
    select kind, unnest(transaction_ids)::text, queued_at from pending_matches where transaction_ids is not null
  `.execute(db)
  await sql`delete from pending_matches where transaction_ids is not null`.execute(db)
  await db.schema.alterTable('pending_matches').dropConstraint('pending_matches_one_shape').execute()
  await db.schema
    .alterTable('pending_matches')
    .dropColumn('transaction_ids')
    .alterColumn('entity_id', (c) => c.setNotNull())
    .execute()
}
