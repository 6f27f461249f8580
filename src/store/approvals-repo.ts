import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

/**
 * Every operation the approval policy counts, as one relation: made alone and in force, or waiting for approval
 * (what a second person approved is not counted again). Currency compared trimmed and upper-cased.
 */
const counted = sql`(
  select amount, upper(btrim(currency)) as currency, invoice_id, transaction_id, made_by, created_at
    from dispositions
   where controlled and (status = 'pending_approval' or (status = 'active' and decided_by is null))
  union all
  select amount, upper(btrim(currency)), invoice_id, null, made_by, created_at
    from credit_notes
   where voided_at is null and (status = 'pending_approval' or (status = 'active' and decided_by is null))
  union all
  select write_off, upper(btrim(currency)), write_off_invoice_id, transaction_id, made_by, created_at
    from remittance_imports
   where write_off > 0 and (status = 'pending_approval' or (status = 'active' and decided_by is null))
)`

/** What is counted against the threshold in `currency`: per invoice (any of them), per payment, per maker since. */
export async function countedAgainstThreshold(
  db: Kysely<Database>,
  scope: {
    currency: string
    invoiceIds: readonly string[]
    transactionId: string | null
    maker: string
    since: Date
  },
): Promise<{ invoice: string; payment: string; maker: string }> {
  const invoices = scope.invoiceIds.length > 0 ? [...scope.invoiceIds] : ['']
  const result = await sql<{ invoice: string; payment: string; maker: string }>`
    select coalesce(sum(amount) filter (where invoice_id = any(${invoices}::text[])), 0)::text as invoice,
           coalesce(sum(amount) filter (where transaction_id = ${scope.transactionId}::uuid), 0)::text as payment,
           coalesce(sum(amount) filter (where made_by = ${scope.maker} and created_at >= ${scope.since}), 0)::text as maker
      from ${counted} as c
     where currency = ${scope.currency}
       and (invoice_id = any(${invoices}::text[]) or transaction_id = ${scope.transactionId}::uuid
            or (made_by = ${scope.maker} and created_at >= ${scope.since}))`.execute(db)
  return result.rows[0] ?? { invoice: '0', payment: '0', maker: '0' }
}

/** An operation waiting for a second person, whatever its kind (the dashboard's Approvals page, GET /api/approvals). */
export type PendingApprovalRow = {
  kind: 'disposition' | 'credit_note' | 'remittance'
  id: string
  /** A disposition's kind, `credit_note`, or `remittance` (its fee reason in `reason`). */
  operation: string
  amount: string
  currency: string
  account: string | null
  reason: string
  made_by: string | null
  made_by_role: string | null
  created_at: Date
  invoice_id: string | null
  transaction_id: string | null
}

/** Everything waiting for approval, oldest first. */
export async function listPendingApprovals(
  db: Kysely<Database>,
  limit: number,
): Promise<PendingApprovalRow[]> {
  const result = await sql<PendingApprovalRow>`
    select * from (
      select 'disposition' as kind, id::text as id, kind as operation, amount::text as amount, currency, account,
             reason || coalesce(' (' || note || ')', '') as reason, made_by, made_by_role, created_at, invoice_id,
             transaction_id::text as transaction_id
        from dispositions where status = 'pending_approval'
      union all
      select 'credit_note', id, 'credit_note', amount::text, currency, account, 'credit note ' || number, made_by,
             made_by_role, created_at, invoice_id, null
        from credit_notes where status = 'pending_approval' and voided_at is null
      union all
      select 'remittance', id::text, 'remittance', write_off::text, currency, null,
             fee_reason || ': fee ' || fee::text || ', difference ' || difference::text
               || coalesce(' (' || source || ')', ''),
             made_by, made_by_role, created_at, write_off_invoice_id, transaction_id::text
        from remittance_imports where status = 'pending_approval'
    ) as pending
    order by created_at, kind, id
    limit ${limit}`.execute(db)
  return result.rows
}
