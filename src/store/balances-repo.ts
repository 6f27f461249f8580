import type { Kysely } from 'kysely'
import type { AccountBalance } from '../api-client/index.js'
import type { Database } from './database.js'

/**
 * Writes re-read balance rows. Balance rows are mutable projections at the bank, so rows re-read for a date
 * range replace what the mirror had for it.
 */
export async function upsertDailyBalances(
  db: Kysely<Database>,
  rows: readonly AccountBalance[],
): Promise<void> {
  if (rows.length === 0) return
  await db
    .insertInto('daily_balances')
    .values(
      rows.map((b) => ({
        account_id: b.accountId,
        date: b.date,
        connection_id: b.connectionId,
        entity_id: b.entityId,
        currency: b.currency,
        ledger_balance: b.ledgerBalance,
        posted_transaction_delta: b.postedTransactionDelta,
        source: b.source,
        updated_at: b.updatedAt,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'date']).doUpdateSet((eb) => ({
        connection_id: eb.ref('excluded.connection_id'),
        entity_id: eb.ref('excluded.entity_id'),
        currency: eb.ref('excluded.currency'),
        ledger_balance: eb.ref('excluded.ledger_balance'),
        posted_transaction_delta: eb.ref('excluded.posted_transaction_delta'),
        source: eb.ref('excluded.source'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute()
}
