import type { Kysely } from 'kysely'
import {
  enqueuePaymentsOfPayers,
  invoicesWithStaleKeys,
  writeInvoiceKeys,
  type Database,
} from '../store/index.js'
import { INVOICE_KEYS_VERSION, invoiceKeys } from './invoice-keys.js'

const BATCH = 1000

/**
 * Makes the keys again of every invoice whose keys an older version of the rules made (or none: rows from before
 * migration 0021), and queues matching for the payments a new customer key now leads to. Idempotent, and safe
 * with several processes starting at once: each writes the same keys. Returns how many invoices were re-keyed.
 */
export async function rekeyInvoices(db: Kysely<Database>): Promise<number> {
  let done = 0
  for (;;) {
    const rows = await invoicesWithStaleKeys(db, INVOICE_KEYS_VERSION, BATCH)
    if (rows.length === 0) return done
    const rekeyed = rows.map((row) => ({
      id: row.id,
      old: row.customer_keys,
      keys: invoiceKeys({
        number: row.number,
        customerName: row.customer_name,
        customerAliases: row.customer_aliases,
        paymentReference: row.payment_reference,
      }),
    }))
    const added = rekeyed.flatMap((row) => row.keys.customerKeys.filter((key) => !row.old.includes(key)))
    await db.transaction().execute(async (trx) => {
      await writeInvoiceKeys(trx, rekeyed)
      await enqueuePaymentsOfPayers(
        trx,
        [...new Set(added)].map((key) => `n:${key}`),
      )
    })
    done += rows.length
  }
}
