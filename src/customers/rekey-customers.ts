import type { Kysely } from 'kysely'
import {
  customersWithStaleKeys,
  enqueuePaymentsOfPayers,
  writeCustomerKeys,
  type Database,
} from '../store/index.js'
import { CUSTOMER_KEYS_VERSION, customerKeys } from './customer-keys.js'

const BATCH = 1000

/**
 * Makes the keys again of every customer whose keys an older version of the rules made, and queues matching for
 * the payments a new name key now leads to (a payer whose name the bank cut, say). Idempotent, and safe with
 * several processes starting at once. Returns how many customers were re-keyed.
 */
export async function rekeyCustomers(db: Kysely<Database>): Promise<number> {
  let done = 0
  for (;;) {
    const rows = await customersWithStaleKeys(db, CUSTOMER_KEYS_VERSION, BATCH)
    if (rows.length === 0) return done
    const rekeyed = rows.map((row) => ({
      id: row.id,
      old: row.name_keys,
      ...customerKeys({ name: row.name, aliases: row.aliases, bankAccounts: row.bank_accounts }),
    }))
    const added = rekeyed.flatMap((row) => row.nameKeys.filter((key) => !row.old.includes(key)))
    await db.transaction().execute(async (trx) => {
      await writeCustomerKeys(trx, rekeyed)
      await enqueuePaymentsOfPayers(
        trx,
        added.map((key) => `n:${key}`),
      )
    })
    done += rows.length
  }
}
