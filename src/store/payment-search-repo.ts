import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

/** What a person searches bank lines by; every part optional, all of them must hold. */
export type PaymentSearch = {
  /** The amount exactly, either sign (a decimal string). */
  amount?: string
  /** Part of the payer's name, any case. */
  payer?: string
  /** Part of the payment reference or description, any case. */
  reference?: string
  /** Posting days, both included (YYYY-MM-DD). */
  from?: string
  to?: string
}

/** A bank line with what matching made of it. */
export type PaymentSearchRow = {
  id: string
  account_id: string
  posted_date: string | null
  amount: string
  currency: string
  status: string
  counterparty_name: string | null
  payment_reference: string | null
  description: string | null
  /** The sum of its active allocations. */
  allocated: string
  /** The key of its open exception, if any (the oldest). */
  open_exception: string | null
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Bank lines matching the search, in id order after `afterId`, `limit` of them (keyset paging). */
export async function searchPayments(
  db: Kysely<Database>,
  search: PaymentSearch,
  afterId: string | null,
  limit: number,
): Promise<PaymentSearchRow[]> {
  let query = db
    .selectFrom('transactions as t')
    .select([
      't.id',
      't.account_id',
      sql<string | null>`t.posted_date::text`.as('posted_date'),
      't.amount',
      't.currency',
      't.status',
      't.counterparty_name',
      't.payment_reference',
      't.description',
      sql<string>`coalesce((select sum(a.amount) from allocations a
        where a.transaction_id = t.id and a.reversed_at is null), 0)::text`.as('allocated'),
      sql<string | null>`(select e.key from match_exceptions e
        where e.transaction_id = t.id and e.resolved_at is null order by e.opened_at limit 1)`.as(
        'open_exception',
      ),
    ])
    .orderBy('t.id')
    .limit(limit)
  if (search.amount !== undefined)
    query = query.where(sql<boolean>`abs(t.amount) = ${search.amount}::numeric`)
  if (search.payer !== undefined) query = query.where('t.counterparty_name', 'ilike', like(search.payer))
  if (search.reference !== undefined) {
    const pattern = like(search.reference)
    query = query.where((eb) =>
      eb.or([
        eb('t.payment_reference', 'ilike', pattern),
        eb('t.description', 'ilike', pattern),
        eb('t.raw_description', 'ilike', pattern),
      ]),
    )
  }
  if (search.from !== undefined) query = query.where(sql<boolean>`t.posted_date >= ${search.from}::date`)
  if (search.to !== undefined) query = query.where(sql<boolean>`t.posted_date <= ${search.to}::date`)
  if (afterId !== null) query = query.where('t.id', '>', afterId)
  return (await query.execute()) as PaymentSearchRow[]
}

/** An invoice a payment may still be matched to. */
export type OpenInvoiceRow = {
  id: string
  number: string
  customer_name: string | null
  amount: string
  amount_open: string
  currency: string
  due_date: string | null
}

/**
 * Open and partly paid invoices (not void) whose number or customer holds `text`, or whose amount or open amount
 * is `text` exactly, oldest due first: what a person types when matching a payment by hand.
 */
export async function searchOpenInvoices(
  db: Kysely<Database>,
  text: string,
  options: { currency?: string; limit: number },
): Promise<OpenInvoiceRow[]> {
  const pattern = like(text)
  const amount = /^\d{1,30}(\.\d{1,18})?$/.test(text) ? text : null
  let query = db
    .selectFrom('invoices as i')
    .leftJoin('invoice_state as s', 's.invoice_id', 'i.id')
    .leftJoin('customers as c', 'c.id', 'i.customer_id')
    .select([
      'i.id',
      'i.number',
      sql<string | null>`coalesce(c.name, i.customer_name)`.as('customer_name'),
      'i.amount',
      sql<string>`coalesce(s.amount_open, i.amount)::text`.as('amount_open'),
      'i.currency',
      sql<string | null>`i.due_date::text`.as('due_date'),
    ])
    .where('i.voided_at', 'is', null)
    .where(sql<boolean>`coalesce(s.status, 'open') in ('open', 'partially_paid')`)
    .where((eb) =>
      eb.or([
        eb('i.number', 'ilike', pattern),
        eb('i.customer_name', 'ilike', pattern),
        eb('c.name', 'ilike', pattern),
        ...(amount === null
          ? []
          : [
              eb(sql`i.amount`, '=', sql`${amount}::numeric`),
              eb(sql`s.amount_open`, '=', sql`${amount}::numeric`),
            ]),
      ]),
    )
    .orderBy(sql`i.due_date asc nulls last`)
    .orderBy('i.id')
    .limit(options.limit)
  if (options.currency !== undefined) query = query.where('i.currency', '=', options.currency)
  return (await query.execute()) as OpenInvoiceRow[]
}
