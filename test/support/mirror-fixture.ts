import { sql, type Kysely } from 'kysely'
import {
  replaceConnectionAccounts,
  upsertDailyBalances,
  upsertTransactions,
  type Database,
  type TransactionRow,
} from '../../src/store/index.js'

export const CONNECTION_A = 'aaaaaaaa-0000-4000-8000-000000000001'
export const CONNECTION_B = 'bbbbbbbb-0000-4000-8000-000000000002'
export const ACCOUNT_A1 = 'a1a1a1a1-0000-4000-8000-000000000001'
export const ACCOUNT_A2 = 'a2a2a2a2-0000-4000-8000-000000000002'
export const ACCOUNT_B1 = 'b1b1b1b1-0000-4000-8000-000000000003'
const ENTITY = 'eeeeeeee-0000-4000-8000-000000000009'

/** Transaction ids in order: the nth id sorts before the (n+1)th. */
export const txId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

export function mirrorRow(n: number, overrides: Partial<TransactionRow> = {}): TransactionRow {
  return {
    id: txId(n),
    connection_id: CONNECTION_A,
    account_id: ACCOUNT_A1,
    posted_date: '2026-03-01',
    updated_at: '2026-03-01T10:00:00.000Z',
    amount: '10.50',
    currency: 'USD',
    description: `Payment ${n}`,
    raw_description: `RAW ${n}`,
    customer_reference: null,
    bank_reference: `BR${n}`,
    payment_reference: `INV-${n}`,
    bai_code: null,
    category: 'transfer',
    subcategory: null,
    mcc: null,
    merchant_name: null,
    counterparty_name: 'ACME',
    counterparty_account_masked: null,
    status: 'posted',
    entry_type: 'credit',
    rail: 'ach',
    last_event_id: null,
    backfill_run: null,
    ...overrides,
  }
}

/**
 * A small mirror: connection A with two accounts and balance rows that add up over 2026-03-01..03, connection B
 * with one account; amounts with unusual scales and text that needs CSV quoting.
 */
export async function writeMirrorFixture(db: Kysely<Database>): Promise<void> {
  await upsertTransactions(db, [
    mirrorRow(1),
    mirrorRow(2, { amount: '-1250.00', entry_type: 'debit', description: 'ACME, Inc. "rent"\nMarch' }),
    mirrorRow(3, { amount: '0.001', posted_date: '2026-03-02' }),
    mirrorRow(4, { status: 'pending', amount: '99.00', posted_date: '2026-03-02' }),
    mirrorRow(5, { account_id: ACCOUNT_A2, amount: '5.00' }),
    mirrorRow(6, {
      posted_date: null,
      updated_at: null,
      amount: null,
      status: null,
      entry_type: null,
      rail: null,
    }),
    mirrorRow(7, { connection_id: CONNECTION_B, account_id: ACCOUNT_B1, currency: 'EUR', amount: '7.00' }),
  ])
  const account = (id: string, connectionId: string, currency: string) => ({
    id,
    connectionId,
    type: 'checking' as const,
    currency,
    name: `Operating ${currency}`,
    status: 'open' as const,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-03-02T00:00:00.000Z',
    officialName: null,
    maskedNumber: '••1234',
    accountNumber: null,
    routingNumber: null,
    swiftBic: null,
    paymentIdentifiers: [
      {
        scheme: 'us_ach' as const,
        countryCode: 'US',
        currency,
        details: { routingNumber: '011000015', accountNumber: '0001234' },
      },
    ],
    currentBalance: '1000.10',
    availableBalance: '990.00',
    balanceAsOf: '2026-03-02T00:00:00.000Z',
  })
  await replaceConnectionAccounts(db, CONNECTION_A, [
    account(ACCOUNT_A1, CONNECTION_A, 'USD'),
    account(ACCOUNT_A2, CONNECTION_A, 'USD'),
  ])
  await replaceConnectionAccounts(db, CONNECTION_B, [account(ACCOUNT_B1, CONNECTION_B, 'EUR')])
  const balance = (accountId: string, date: string, ledger: string, delta: string) => ({
    accountId,
    connectionId: CONNECTION_A,
    entityId: ENTITY,
    date,
    currency: 'USD',
    ledgerBalance: ledger,
    postedTransactionDelta: delta,
    source: 'bank' as const,
    // As of the newest mirrored change: the rows count exactly the mirrored transactions.
    updatedAt: '2026-03-01T10:00:00.000Z',
  })
  await upsertDailyBalances(db, [
    balance(ACCOUNT_A1, '2026-02-28', '2000.00', '0.00'),
    balance(ACCOUNT_A1, '2026-03-01', '760.50', '-1239.50'),
    balance(ACCOUNT_A1, '2026-03-02', '760.501', '0.001'),
    balance(ACCOUNT_A1, '2026-03-03', '760.501', '0.00'),
    balance(ACCOUNT_A2, '2026-03-01', '105.00', '5.00'),
  ])
}

/** Matching's outbox entries in order (a sync page's row holds its ids in transaction_ids). */
export async function queuedEntries(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select e.id from pending_matches p,
      unnest(coalesce(p.transaction_ids::text[], array[p.entity_id])) with ordinality as e(id, n)
    order by p.seq, e.n
  `.execute(db)
  return rows.map((r) => r.id)
}
