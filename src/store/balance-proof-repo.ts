import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './database.js'

/** Which accounts and days a balance proof covers; every field narrows it. */
export type BalanceProofScope = {
  connectionId?: string
  accountId?: string
  /** Inclusive ISO date. */
  dateGte?: string
  /** Exclusive ISO date. */
  dateLt?: string
}

export type ProofAccount = { accountId: string; connectionId: string; currency: string }

/** One day of one account: the mirror's posted sum beside the bank's balance row (either may be missing). */
export type ProofDayRow = {
  date: string
  mirroredPostedSum: string | null
  bankDelta: string | null
  ledgerBalance: string | null
  /** When the bank's balance row last changed (the bank's time); null without a row. */
  balanceUpdatedAt: Date | null
}

type DayQueryRow = {
  date: string
  posted_sum: string | null
  bank_delta: string | null
  ledger_balance: string | null
  balance_updated_at: Date | null
}

const ACCOUNT_PAGE = 200
const DAY_PAGE = 1_000

/** The accounts that have balance rows in the mirror (only those can be proved), in id order, a page at a time. */
export async function* proofAccounts(
  db: Kysely<Database>,
  scope: BalanceProofScope,
): AsyncGenerator<ProofAccount> {
  let after: string | null = null
  for (;;) {
    let query = db
      .selectFrom('daily_balances')
      .select(['account_id', 'connection_id', sql<string>`min(currency)`.as('currency')])
      .groupBy(['account_id', 'connection_id'])
      .orderBy('account_id')
      .limit(ACCOUNT_PAGE)
    if (scope.connectionId !== undefined) query = query.where('connection_id', '=', scope.connectionId)
    if (scope.accountId !== undefined) query = query.where('account_id', '=', scope.accountId)
    if (after !== null) query = query.where('account_id', '>', after)
    const rows = await query.execute()
    for (const row of rows) {
      yield { accountId: row.account_id, connectionId: row.connection_id, currency: row.currency }
    }
    if (rows.length < ACCOUNT_PAGE) return
    after = rows.at(-1)!.account_id
  }
}

/** The account's last balance row before `date`: the anchor of the first proved day's continuity check. */
export async function balanceRowBefore(
  db: Kysely<Database>,
  accountId: string,
  date: string,
): Promise<{ date: string; ledgerBalance: string } | null> {
  const row = await db
    .selectFrom('daily_balances')
    .select(['date', sql<string>`ledger_balance::text`.as('ledger_balance')])
    .where('account_id', '=', accountId)
    .where('date', '<', date)
    .orderBy('date', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? { date: row.date, ledgerBalance: row.ledger_balance } : null
}

/**
 * The account's days in date order, DAY_PAGE at a time (keyset on date): per day, the exact NUMERIC sum of its
 * posted mirrored transactions in the account's currency, and the bank's balance row. Days after the account's
 * last balance row are left out: the bank has not projected them yet (future-dated lines, or rows not re-read).
 */
export async function* proofDays(
  db: Kysely<Database>,
  account: ProofAccount,
  scope: Pick<BalanceProofScope, 'dateGte' | 'dateLt'>,
): AsyncGenerator<ProofDayRow> {
  let after: string | null = null
  for (;;) {
    const balanceRange: RawBuilder<unknown> = sql.join(
      [
        sql`account_id = ${account.accountId}`,
        ...(after !== null ? [sql`date > ${after}::date`] : []),
        ...(scope.dateGte !== undefined ? [sql`date >= ${scope.dateGte}::date`] : []),
        ...(scope.dateLt !== undefined ? [sql`date < ${scope.dateLt}::date`] : []),
      ],
      sql` and `,
    )
    const postedRange: RawBuilder<unknown> = sql.join(
      [
        sql`connection_id = ${account.connectionId}`,
        sql`account_id = ${account.accountId}`,
        sql`status = 'posted'`,
        sql`amount is not null`,
        sql`(currency is null or currency = ${account.currency})`,
        sql`posted_date <= (select max(date) from daily_balances where account_id = ${account.accountId})`,
        ...(after !== null ? [sql`posted_date > ${after}::date`] : []),
        ...(scope.dateGte !== undefined ? [sql`posted_date >= ${scope.dateGte}::date`] : []),
        ...(scope.dateLt !== undefined ? [sql`posted_date < ${scope.dateLt}::date`] : []),
      ],
      sql` and `,
    )
    const { rows }: { rows: DayQueryRow[] } = await sql<DayQueryRow>`
      with b as (
        select date, posted_transaction_delta::text as bank_delta, ledger_balance::text as ledger_balance,
          updated_at as balance_updated_at
        from daily_balances where ${balanceRange}
      ), p as (
        select posted_date as date, sum(amount)::text as posted_sum
        from transactions where ${postedRange}
        group by posted_date
      )
      select coalesce(b.date, p.date) as date, p.posted_sum, b.bank_delta, b.ledger_balance, b.balance_updated_at
      from b full join p on p.date = b.date
      order by 1
      limit ${DAY_PAGE}
    `.execute(db)
    for (const row of rows) {
      yield {
        date: row.date,
        mirroredPostedSum: row.posted_sum,
        bankDelta: row.bank_delta,
        ledgerBalance: row.ledger_balance,
        balanceUpdatedAt: row.balance_updated_at,
      }
    }
    if (rows.length < DAY_PAGE) return
    after = rows.at(-1)!.date
  }
}

/**
 * The newest change the mirror holds for a connection, as the bank timed it (the latest mirrored transaction's
 * updatedAt); null when nothing is mirrored. A balance row the bank changed after it may count transactions the
 * next sync will bring.
 */
export async function newestMirroredChangeAt(
  db: Kysely<Database>,
  connectionId: string,
): Promise<Date | null> {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.max('updated_at').as('newest'))
    .where('connection_id', '=', connectionId)
    .executeTakeFirst()
  return row?.newest ?? null
}
