import { sql, type Kysely, type Selectable } from 'kysely'
import type { CustomerLinksTable, CustomersTable, Database } from './database.js'
import { anyOf } from './any-of.js'

export type CustomerRow = Selectable<CustomersTable>
export type CustomerLinkRow = Selectable<CustomerLinksTable>

/** A customer as the caller gives it. */
export type CustomerWrite = {
  id: string
  name: string
  aliases: readonly string[]
  bankAccounts: readonly string[]
  /** What payers are compared by, worked out by the caller: normalized name and aliases, bank account tails. */
  nameKeys: readonly string[]
  accountTails: readonly string[]
  /** The version of the rules that made the keys. */
  keysVersion: number
}

export type CustomerUpsertOutcome = { row: CustomerRow; created: boolean; changed: boolean }

function toRow(customer: CustomerWrite, now: Date) {
  return {
    id: customer.id,
    name: customer.name,
    aliases: [...customer.aliases],
    bank_accounts: [...customer.bankAccounts],
    name_keys: [...customer.nameKeys],
    account_tails: [...customer.accountTails],
    keys_version: customer.keysVersion,
    created_at: now,
    updated_at: now,
  }
}

const CALLER_COLUMNS = [
  'name',
  'aliases',
  'bank_accounts',
  'name_keys',
  'account_tails',
  'keys_version',
] as const

/**
 * Inserts or updates customers in the caller's transaction; writing the same fields again changes nothing (no new
 * version). The outcomes come in the order given.
 */
export async function upsertCustomers(
  db: Kysely<Database>,
  customers: readonly CustomerWrite[],
  now: Date,
): Promise<CustomerUpsertOutcome[]> {
  const outcomes: CustomerUpsertOutcome[] = []
  for (let start = 0; start < customers.length; start += 1000) {
    const chunk = customers.slice(start, start + 1000)
    const written = await db
      .insertInto('customers')
      .values(chunk.map((customer) => toRow(customer, now)))
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            ...Object.fromEntries(CALLER_COLUMNS.map((column) => [column, eb.ref(`excluded.${column}`)])),
            version: sql`customers.version + 1`,
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where(
            sql<boolean>`(${sql.join(CALLER_COLUMNS.map((column) => sql.ref(`customers.${column}`)))})
              is distinct from (${sql.join(CALLER_COLUMNS.map((column) => sql.ref(`excluded.${column}`)))})`,
          ),
      )
      .returningAll()
      .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
      .execute()
    const byId = new Map(written.map((row) => [row.id, row]))
    const missing = chunk.map((customer) => customer.id).filter((id) => !byId.has(id))
    const unchanged = missing.length === 0 ? [] : await getCustomers(db, missing)
    const unchangedById = new Map(unchanged.map((row) => [row.id, row]))
    for (const customer of chunk) {
      const row = byId.get(customer.id)
      if (row) {
        const { inserted, ...stored } = row
        outcomes.push({ row: stored, created: inserted, changed: true })
      } else {
        outcomes.push({ row: unchangedById.get(customer.id)!, created: false, changed: false })
      }
    }
  }
  return outcomes
}

export async function getCustomers(db: Kysely<Database>, ids: readonly string[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('customers').selectAll().where('id', '=', anyOf(ids)).orderBy('id').execute()
}

/** One keyset page ordered by id; ask for limit + 1 rows to learn whether more follow. */
export async function listCustomers(
  db: Kysely<Database>,
  filter: { nameKey?: string; afterId?: string; limit: number },
): Promise<CustomerRow[]> {
  let query = db.selectFrom('customers').selectAll()
  if (filter.nameKey !== undefined) {
    query = query.where(sql<boolean>`name_keys @> array[${filter.nameKey}]::text[]`)
  }
  if (filter.afterId !== undefined) query = query.where('id', '>', filter.afterId)
  return query.orderBy('id').limit(filter.limit).execute()
}

/**
 * The customers a set of payments may be paid by: by id, by a name key, by the last four characters of an account,
 * or by a learned link's key.
 */
export async function loadCustomersForMatching(
  db: Kysely<Database>,
  query: {
    ids: readonly string[]
    nameKeys: readonly string[]
    accountTails: readonly string[]
    linkKeys: readonly string[]
  },
): Promise<CustomerRow[]> {
  if (query.ids.length + query.nameKeys.length + query.accountTails.length + query.linkKeys.length === 0)
    return []
  return db
    .selectFrom('customers')
    .selectAll()
    .where((eb) =>
      eb.or([
        sql<boolean>`id = any(${[...query.ids]}::text[])`,
        sql<boolean>`name_keys && ${[...query.nameKeys]}::text[]`,
        sql<boolean>`account_tails && ${[...query.accountTails]}::text[]`,
        sql<boolean>`id in (select customer_id from customer_links where removed_at is null and key = any(${[...query.linkKeys]}::text[]))`,
      ]),
    )
    .orderBy('id')
    .execute()
}

/** The active learned links of these customers. */
export async function activeCustomerLinks(
  db: Kysely<Database>,
  customerIds: readonly string[],
): Promise<CustomerLinkRow[]> {
  if (customerIds.length === 0) return []
  return db
    .selectFrom('customer_links')
    .selectAll()
    .where('customer_id', '=', anyOf(customerIds))
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute()
}

/** Records what a person's match taught; a link already known stays as it is. @returns the links added */
export async function learnCustomerLinks(
  db: Kysely<Database>,
  links: ReadonlyArray<
    Pick<CustomerLinkRow, 'customer_id' | 'kind' | 'value' | 'key' | 'transaction_id' | 'invoice_id'>
  >,
  at: Date,
): Promise<CustomerLinkRow[]> {
  if (links.length === 0) return []
  return db
    .insertInto('customer_links')
    .values(links.map((link) => ({ ...link, created_at: at })))
    .onConflict((oc) =>
      oc.columns(['customer_id', 'kind', 'key']).where('removed_at', 'is', null).doNothing(),
    )
    .returningAll()
    .execute()
}

/** Removes a learned link (kept with `removed_at`). Undefined: no such active link of this customer. */
export async function removeCustomerLink(
  db: Kysely<Database>,
  customerId: string,
  linkId: string,
  at: Date,
): Promise<CustomerLinkRow | undefined> {
  if (!/^\d{1,18}$/.test(linkId)) return undefined
  return db
    .updateTable('customer_links')
    .set({ removed_at: at })
    .where('id', '=', linkId)
    .where('customer_id', '=', customerId)
    .where('removed_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Customers whose keys an older version of the rules made, in id order. */
export async function customersWithStaleKeys(
  db: Kysely<Database>,
  version: number,
  limit: number,
): Promise<CustomerRow[]> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('keys_version', '<', version)
    .orderBy('id')
    .limit(limit)
    .execute()
}

/** Replaces customers' keys without a new version: the customer's facts did not change. */
export async function writeCustomerKeys(
  db: Kysely<Database>,
  rows: ReadonlyArray<{
    id: string
    nameKeys: readonly string[]
    accountTails: readonly string[]
    keysVersion: number
  }>,
): Promise<void> {
  if (rows.length === 0) return
  const values = rows.map((row) => ({
    id: row.id,
    name_keys: row.nameKeys,
    account_tails: row.accountTails,
    keys_version: row.keysVersion,
  }))
  await sql`
    update customers set name_keys = k.name_keys, account_tails = k.account_tails, keys_version = k.keys_version
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as k(id text, name_keys text[], account_tails text[], keys_version smallint)
    where customers.id = k.id
  `.execute(db)
}
