import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { createVirtualClock, type VirtualClock } from '../../src/clock/index.js'
import { silentLogger } from '../../src/observability/index.js'
import { matchConfig } from '../../src/matcher/index.js'
import { runMatching, type MatchRunSummary } from '../../src/matching/index.js'
import {
  enqueueMatches,
  upsertInvoices,
  upsertTransactions,
  type InvoiceWrite,
  type TransactionRow,
} from '../../src/store/index.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'
import { withKeys } from '../../src/invoices/index.js'

export const ACCOUNT = '00000000-0000-4000-8000-0000000000a1'
export const OTHER_ACCOUNT = '00000000-0000-4000-8000-0000000000a2'

export type Payment = {
  id?: string
  amount: string
  currency?: string
  status?: string
  paymentReference?: string | null
  description?: string | null
  counterpartyName?: string | null
  counterpartyAccountMasked?: string | null
  postedDate?: string
  accountId?: string
  updatedAt?: string
}

/** A store with the matching pipeline driven by hand: write, queue, run. */
export type MatchingStore = TestDatabase & {
  clock: VirtualClock
  invoice(invoice: Partial<InvoiceWrite> & { id: string; number: string; amount: string }): Promise<void>
  pay(payment: Payment): Promise<string>
  remove(transactionId: string): Promise<void>
  run(): Promise<MatchRunSummary>
  allocations(): Promise<Array<Record<string, unknown>>>
  state(invoiceId: string): Promise<Record<string, unknown> | undefined>
  openExceptions(): Promise<
    Array<{ key: string; type: string; transaction_id: string | null; invoice_ids: string[] }>
  >
  exception(key: string): Promise<Record<string, any> | undefined>
  events(type?: string): Promise<Array<{ id: string; type: string; payload: any }>>
  reset(): Promise<void>
}

const TABLES = [
  'customers',
  'customer_links',
  'allocations',
  'invoice_state',
  'match_exceptions',
  'transaction_references',
  'pending_matches',
  'manual_matches',
  'dispositions',
  'rejected_suggestions',
  'transfer_legs',
  'transfers',
  'invoices',
  'transactions',
  'app_events',
]

export async function createMatchingStore(label: string, windowSeconds = 3600): Promise<MatchingStore> {
  const database = await createTestDatabase(label)
  const { db } = database
  const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })
  const config = matchConfig({ transferLegWindowSeconds: windowSeconds })
  const store: MatchingStore = {
    ...database,
    clock,
    async invoice(invoice) {
      await upsertInvoices(db, [withKeys({ currency: 'USD', ...invoice })], clock.now())
      await enqueueMatches(db, 'invoice', [invoice.id])
    },
    async pay(payment) {
      const id = payment.id ?? randomUUID()
      const row: TransactionRow = {
        id,
        connection_id: 'conn_1',
        account_id: payment.accountId ?? ACCOUNT,
        posted_date: payment.postedDate ?? '2026-03-02',
        updated_at: payment.updatedAt ?? clock.now().toISOString(),
        amount: payment.amount,
        currency: payment.currency ?? 'USD',
        description: payment.description ?? null,
        raw_description: null,
        customer_reference: null,
        bank_reference: null,
        payment_reference: payment.paymentReference ?? null,
        bai_code: null,
        category: null,
        subcategory: null,
        mcc: null,
        merchant_name: null,
        counterparty_name: payment.counterpartyName ?? null,
        counterparty_account_masked: payment.counterpartyAccountMasked ?? null,
        status: payment.status ?? 'posted',
        entry_type: payment.amount.startsWith('-') ? 'debit' : 'credit',
        rail: 'ach',
        last_event_id: null,
        backfill_run: null,
      }
      await db.transaction().execute(async (trx) => {
        await upsertTransactions(trx, [row])
        await enqueueMatches(trx, 'transaction', [id])
      })
      return id
    },
    async remove(transactionId) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('transactions').where('id', '=', transactionId).execute()
        await enqueueMatches(trx, 'transaction', [transactionId])
      })
    },
    run: () =>
      runMatching({
        db,
        lockNamespace: database.schema,
        clock,
        logger: silentLogger,
        config,
      }),
    async allocations() {
      return db
        .selectFrom('allocations')
        .select([
          'id',
          'transaction_id',
          'invoice_id',
          'amount',
          'write_off',
          'settled',
          'rule',
          'made_by',
          'actor',
          'matched_reference',
        ])
        .where('reversed_at', 'is', null)
        .orderBy('transaction_id')
        .orderBy('invoice_id')
        .execute()
    },
    async state(invoiceId) {
      return db
        .selectFrom('invoice_state')
        .select([
          'status',
          'amount_paid',
          'amount_pending',
          'amount_open',
          'amount_overpaid',
          'amount_written_off',
        ])
        .where('invoice_id', '=', invoiceId)
        .executeTakeFirst()
    },
    async openExceptions() {
      return db
        .selectFrom('match_exceptions')
        .select(['key', 'type', 'transaction_id', 'invoice_ids'])
        .where('resolved_at', 'is', null)
        .orderBy('key')
        .execute()
    },
    async exception(key) {
      return db.selectFrom('match_exceptions').selectAll().where('key', '=', key).executeTakeFirst()
    },
    async events(type) {
      let query = db.selectFrom('app_events').select(['id', 'type', 'payload'])
      if (type) query = query.where('type', '=', type)
      return query.orderBy('created_at').orderBy('id').execute()
    },
    async reset() {
      for (const table of TABLES) await sql`delete from ${sql.table(table)}`.execute(db)
    },
  }
  return store
}
