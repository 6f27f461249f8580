import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'
import type { InvoiceRow } from './invoices-repo.js'
import { anyOf } from './any-of.js'

// The invoices a matching run reads: by id, by number and its keys, named in a transaction's texts, or open for
// its customers.

export async function loadInvoicesById(db: Kysely<Database>, ids: readonly string[]): Promise<InvoiceRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('invoices').selectAll().where('id', '=', anyOf(ids)).execute()
}

/** Invoices one of whose match keys is among `keys`: every invoice a text with those keys can name. */
export async function loadInvoicesByNumberKeys(
  db: Kysely<Database>,
  keys: readonly string[],
): Promise<InvoiceRow[]> {
  return (await loadInvoicesForTexts(db, { numberKeys: keys, payerNames: [] })).named
}

/**
 * In one statement: the invoices texts with these number keys can name, and one invoice (any status, void too)
 * per way invoices without a customer of the master data write a customer's name, for names among `payerNames`:
 * the customer directory knows a payer by every invoice's name, paid or not, so recognising a payer must not
 * depend on which of its invoices a closed set happens to hold.
 */
export async function loadInvoicesForTexts(
  db: Kysely<Database>,
  texts: { numberKeys: readonly string[]; payerNames: readonly string[] },
): Promise<{ named: InvoiceRow[]; naming: InvoiceRow[] }> {
  if (texts.numberKeys.length === 0 && texts.payerNames.length === 0) return { named: [], naming: [] }
  const { rows } = await sql<InvoiceRow & { named_by_key: boolean }>`
    select invoices.*, true as named_by_key from invoices where match_keys && ${[...texts.numberKeys]}::text[]
    union all (
      select distinct on (customer_name, customer_aliases) invoices.*, false from invoices
      where customer_id is null and customer_keys && ${[...texts.payerNames]}::text[]
      order by customer_name, customer_aliases, id
    )
  `.execute(db)
  const named: InvoiceRow[] = []
  const naming: InvoiceRow[] = []
  for (const { named_by_key: byKey, ...row } of rows) (byKey ? named : naming).push(row)
  return { named, naming }
}

/**
 * Live invoices that are not paid or overpaid, of these customers of the master data or (invoices without one)
 * whose customer name is one of `nameKeys`: the candidates of the payer's exact amount and of suggestions.
 */
export async function loadOpenInvoicesOfCustomers(
  db: Kysely<Database>,
  customers: { ids: readonly string[]; nameKeys: readonly string[] },
): Promise<InvoiceRow[]> {
  if (customers.ids.length === 0 && customers.nameKeys.length === 0) return []
  return db
    .selectFrom('invoices')
    .selectAll('invoices')
    .where((eb) =>
      eb.or([
        sql<boolean>`customer_id = any(${[...customers.ids]}::text[])`,
        sql<boolean>`customer_id is null and customer_keys && ${[...customers.nameKeys]}::text[]`,
      ]),
    )
    .where('voided_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('invoice_state')
            .select('invoice_state.invoice_id')
            .whereRef('invoice_state.invoice_id', '=', 'invoices.id')
            .where('invoice_state.status', 'in', ['paid', 'overpaid']),
        ),
      ),
    )
    .execute()
}

/** Invoices by normalized number (the invoices module's `normalizedInvoiceNumber`), voided ones included. */
export async function loadInvoicesByNumber(
  db: Kysely<Database>,
  normalizedNumbers: readonly string[],
): Promise<
  Array<Pick<InvoiceRow, 'id' | 'number' | 'normalized_number' | 'amount' | 'currency' | 'voided_at'>>
> {
  if (normalizedNumbers.length === 0) return []
  return db
    .selectFrom('invoices')
    .select(['id', 'number', 'normalized_number', 'amount', 'currency', 'voided_at'])
    .where('normalized_number', '=', anyOf(normalizedNumbers))
    .execute()
}
