import type { Kysely } from 'kysely'
import { invoicesWithStaleKeys, writeInvoiceKeys, type Database } from '../store/index.js'
import { INVOICE_KEYS_VERSION, invoiceKeys } from './invoice-keys.js'

const BATCH = 1000

/**
 * Makes the keys again of every invoice whose keys an older version of the rules made (or none: rows from before
 * migration 0021). Idempotent, and safe with several processes starting at once: each writes the same keys.
 * Returns how many invoices were re-keyed.
 */
export async function rekeyInvoices(db: Kysely<Database>): Promise<number> {
  let done = 0
  for (;;) {
    const rows = await invoicesWithStaleKeys(db, INVOICE_KEYS_VERSION, BATCH)
    if (rows.length === 0) return done
    await writeInvoiceKeys(
      db,
      rows.map((row) => ({
        id: row.id,
        keys: invoiceKeys({
          number: row.number,
          customerName: row.customer_name,
          customerAliases: row.customer_aliases,
          paymentReference: row.payment_reference,
        }),
      })),
    )
    done += rows.length
  }
}
