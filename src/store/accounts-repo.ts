import type { Kysely } from 'kysely'
import type { Account } from '../api-client/index.js'
import { allOf } from './any-of.js'
import type { Database } from './database.js'

/** Replaces the mirror of a connection's accounts with what the bank lists now. */
export async function replaceConnectionAccounts(
  db: Kysely<Database>,
  connectionId: string,
  accounts: readonly Account[],
): Promise<void> {
  const ids = accounts.map((a) => a.id)
  let removal = db.deleteFrom('accounts').where('connection_id', '=', connectionId)
  if (ids.length > 0) removal = removal.where('id', '<>', allOf(ids))
  await removal.execute()
  if (accounts.length === 0) return
  const rows = accounts.map((a) => ({
    id: a.id,
    connection_id: a.connectionId,
    type: a.type,
    currency: a.currency,
    name: a.name,
    status: a.status,
    official_name: a.officialName,
    masked_number: a.maskedNumber,
    payment_identifiers: JSON.stringify(a.paymentIdentifiers),
    current_balance: a.currentBalance,
    available_balance: a.availableBalance,
    balance_as_of: a.balanceAsOf,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  }))
  await db
    .insertInto('accounts')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        connection_id: eb.ref('excluded.connection_id'),
        type: eb.ref('excluded.type'),
        currency: eb.ref('excluded.currency'),
        name: eb.ref('excluded.name'),
        status: eb.ref('excluded.status'),
        official_name: eb.ref('excluded.official_name'),
        masked_number: eb.ref('excluded.masked_number'),
        payment_identifiers: eb.ref('excluded.payment_identifiers'),
        current_balance: eb.ref('excluded.current_balance'),
        available_balance: eb.ref('excluded.available_balance'),
        balance_as_of: eb.ref('excluded.balance_as_of'),
        created_at: eb.ref('excluded.created_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute()
}
