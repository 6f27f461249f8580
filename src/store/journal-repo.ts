import { sql, type Kysely } from 'kysely'
import type { Database } from './database.js'

/** A settled allocation recorded or reversed in the period, with its invoice and payment. */
export type JournalAllocationRow = {
  id: string
  transaction_id: string
  invoice_id: string
  invoice_number: string | null
  amount: string
  write_off: string
  /** Why and where the write-off is booked (migration 0018); null on older rows. */
  write_off_reason: string | null
  write_off_account: string | null
  rule: string
  created_at: Date
  reversed_at: Date | null
  currency: string | null
  account_id: string | null
  payment_reference: string | null
  counterparty_name: string | null
  /** The bank's posting date of the payment (YYYY-MM-DD); null while pending. */
  posted_date: string | null
  /** The invoice's customer: the master data's name, else the name on the invoice. */
  customer_name: string | null
}

/** A disposition put in force or undone in the period, with its payment or (a write-off of its rest) invoice. */
export type JournalDispositionRow = {
  id: string
  transaction_id: string | null
  invoice_id: string | null
  invoice_number: string | null
  note: string | null
  kind: string
  amount: string
  currency: string
  account: string
  customer_id: string | null
  reason: string
  in_force_at: Date
  undone_at: Date | null
  account_id: string | null
  payment_reference: string | null
  counterparty_name: string | null
  posted_date: string | null
}

/** A credit note that came in force or was voided in the period, with its invoice. */
export type JournalCreditNoteRow = {
  id: string
  number: string
  invoice_id: string
  invoice_number: string | null
  amount: string
  currency: string
  account: string | null
  in_force_at: Date
  voided_at: Date | null
}

/**
 * What the journal of [from, to) books: settled allocations made or reversed, dispositions put in force (made,
 * or approved) or undone, credit notes put in force or voided, in that period.
 */
export async function loadJournalRows(
  db: Kysely<Database>,
  period: { from: Date; to: Date },
): Promise<{
  allocations: JournalAllocationRow[]
  dispositions: JournalDispositionRow[]
  creditNotes: JournalCreditNoteRow[]
}> {
  const inPeriod = (column: string) =>
    sql<boolean>`(${sql.ref(column)} >= ${period.from} and ${sql.ref(column)} < ${period.to})`
  const allocations = await db
    .selectFrom('allocations as a')
    .leftJoin('invoices as i', 'i.id', 'a.invoice_id')
    .leftJoin('transactions as t', 't.id', 'a.transaction_id')
    .leftJoin('customers as c', 'c.id', 'i.customer_id')
    .select([
      'a.id',
      'a.transaction_id',
      'a.invoice_id',
      'i.number as invoice_number',
      'a.amount',
      'a.write_off',
      'a.write_off_reason',
      'a.write_off_account',
      'a.rule',
      'a.created_at',
      'a.reversed_at',
      't.currency',
      't.account_id',
      't.payment_reference',
      't.counterparty_name',
      sql<string | null>`t.posted_date::text`.as('posted_date'),
      sql<string | null>`coalesce(c.name, i.customer_name)`.as('customer_name'),
    ])
    .where('a.settled', '=', true)
    .where((eb) => eb.or([inPeriod('a.created_at'), inPeriod('a.reversed_at')]))
    .orderBy('a.id')
    .execute()
  const inForce = sql<Date>`coalesce(d.decided_at, d.created_at)`
  const dispositions = await db
    .selectFrom('dispositions as d')
    .leftJoin('transactions as t', 't.id', 'd.transaction_id')
    .leftJoin('invoices as i', 'i.id', 'd.invoice_id')
    .select([
      'd.id',
      'd.transaction_id',
      'd.invoice_id',
      'i.number as invoice_number',
      'd.note',
      'd.kind',
      'd.amount',
      'd.currency',
      'd.account',
      'd.customer_id',
      'd.reason',
      inForce.as('in_force_at'),
      'd.undone_at',
      't.account_id',
      't.payment_reference',
      't.counterparty_name',
      sql<string | null>`t.posted_date::text`.as('posted_date'),
    ])
    // An undone disposition was in force (one withdrawn while waiting is declined): book it and its undo.
    .where('d.status', 'in', ['active', 'undone'])
    .where((eb) =>
      eb.or([
        sql<boolean>`(${inForce} >= ${period.from} and ${inForce} < ${period.to})`,
        inPeriod('d.undone_at'),
      ]),
    )
    .orderBy('d.id')
    .execute()
  const creditNotes = await db
    .selectFrom('credit_notes as c')
    .leftJoin('invoices as i', 'i.id', 'c.invoice_id')
    .select([
      'c.id',
      'c.number',
      'c.invoice_id',
      'i.number as invoice_number',
      'c.amount',
      'c.currency',
      'c.account',
      'c.in_force_at',
      'c.voided_at',
    ])
    .where('c.in_force_at', 'is not', null)
    .where((eb) => eb.or([inPeriod('c.in_force_at'), inPeriod('c.voided_at')]))
    .orderBy('c.id')
    .$narrowType<{ in_force_at: Date }>()
    .execute()
  return { allocations, dispositions, creditNotes }
}
