import { sql, type Kysely } from 'kysely'

/**
 * What matching keeps: allocations (never deleted, reversed with a reason), each invoice's derived state, open
 * and resolved exceptions, what each mirrored transaction's references name (to find a change's closed set), a
 * person's inputs (manual matches, rejected suggestions), transfers' legs, the outbox of transactions and
 * invoices to match again, and the hash-chained, append-only audit log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('allocations')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('write_off', 'numeric', (c) => c.notNull().defaultTo(0))
    .addColumn('settled', 'boolean', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('field', 'text')
    .addColumn('matched_reference', 'text')
    .addColumn('via', 'text')
    .addColumn('confidence', 'integer', (c) => c.notNull())
    .addColumn('made_by', 'text', (c) => c.notNull().check(sql`made_by in ('engine', 'person')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('reversed_at', 'timestamptz')
    .addColumn('reversal_reason', 'text')
    .execute()
  await db.schema
    .createIndex('allocations_active')
    .on('allocations')
    .columns(['transaction_id', 'invoice_id', 'made_by'])
    .unique()
    .where(sql.ref('reversed_at'), 'is', null)
    .execute()
  await db.schema
    .createIndex('allocations_active_by_invoice')
    .on('allocations')
    .column('invoice_id')
    .where(sql.ref('reversed_at'), 'is', null)
    .execute()
  await db.schema
    .createIndex('allocations_by_transaction')
    .on('allocations')
    .column('transaction_id')
    .execute()

  await db.schema
    .createTable('invoice_state')
    .addColumn('invoice_id', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_paid', 'numeric', (c) => c.notNull())
    .addColumn('amount_pending', 'numeric', (c) => c.notNull())
    .addColumn('amount_open', 'numeric', (c) => c.notNull())
    .addColumn('amount_overpaid', 'numeric', (c) => c.notNull())
    .addColumn('amount_written_off', 'numeric', (c) => c.notNull())
    .addColumn('status_changes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoice_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('match_exceptions')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid')
    .addColumn('transfer_id', 'text')
    .addColumn('invoice_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('amount', 'numeric')
    .addColumn('confidence', 'integer')
    .addColumn('settled', 'boolean', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('times_opened', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('resolution', 'text')
    .execute()
  await db.schema
    .createIndex('match_exceptions_open')
    .on('match_exceptions')
    .columns(['type', 'key'])
    .where(sql.ref('resolved_at'), 'is', null)
    .execute()
  await db.schema
    .createIndex('match_exceptions_by_transaction')
    .on('match_exceptions')
    .column('transaction_id')
    .execute()

  await db.schema
    .createTable('transaction_references')
    .addColumn('transaction_id', 'uuid', (c) => c.primaryKey())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('invoice_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('candidate_keys', sql`text[]`, (c) => c.notNull())
    .addColumn('payer_key', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  for (const column of ['invoice_ids', 'candidate_keys']) {
    await db.schema
      .createIndex(`transaction_references_by_${column}`)
      .on('transaction_references')
      .using('gin')
      .column(column)
      .execute()
  }
  await db.schema
    .createIndex('transaction_references_by_payer')
    .on('transaction_references')
    .column('payer_key')
    .execute()

  await db.schema
    .createTable('pending_matches')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('transaction', 'invoice')`))
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('manual_matches')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('removed_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('manual_matches_active')
    .on('manual_matches')
    .columns(['transaction_id', 'invoice_id'])
    .unique()
    .where(sql.ref('removed_at'), 'is', null)
    .execute()
  await db.schema.createIndex('manual_matches_by_invoice').on('manual_matches').column('invoice_id').execute()

  await db.schema
    .createTable('rejected_suggestions')
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('invoice_ids', sql`text[]`, (c) => c.notNull())
    .addColumn('rejected_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('rejected_suggestions_pk', ['transaction_id', 'invoice_ids'])
    .execute()

  await db.schema
    .createTable('transfer_legs')
    .addColumn('transfer_id', 'text', (c) => c.primaryKey())
    .addColumn('reference_key', 'text', (c) => c.notNull())
    .addColumn('outflow_transaction_id', 'uuid')
    .addColumn('inflow_transaction_id', 'uuid')
    .addColumn('legs_matched_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('transfer_legs_by_reference')
    .on('transfer_legs')
    .column('reference_key')
    .execute()

  await db.schema
    .createTable('audit_log')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute()
  // Append-only: only someone who can disable the trigger (the table's owner) can change history, and the hash
  // chain shows it (bankrec audit verify).
  await sql`
    create function audit_log_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % is not allowed', tg_op;
    end
    $$
  `.execute(db)
  await sql`
    create trigger audit_log_no_update_or_delete before update or delete on audit_log
    for each row execute function audit_log_append_only()
  `.execute(db)
  await sql`
    create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_append_only()
  `.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'audit_log',
    'transfer_legs',
    'rejected_suggestions',
    'manual_matches',
    'pending_matches',
    'transaction_references',
    'match_exceptions',
    'invoice_state',
    'allocations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute()
  }
  await sql`drop function if exists audit_log_append_only()`.execute(db)
}
