import { sql, type Kysely, type Selectable } from 'kysely'
import type { BalanceExceptionsTable, Database } from './database.js'

/** A day that did not add up in one proof run. */
export type BalanceExceptionDay = {
  connectionId: string
  accountId: string
  date: string
  currency: string | null
  mirroredPostedSum: string
  bankDelta: string | null
  ledgerBalance: string | null
  previousLedgerBalance: string | null
  problemCodes: readonly string[]
}

export type BalanceException = Selectable<BalanceExceptionsTable> & { persistent: boolean }

/** An exception is persistent once it survived the sync after the one that found it. */
export const PERSISTENT_AFTER_RUNS = 2

/**
 * What a proof of the connection owes a look at: `due`, the earliest day synced pages changed since the last proof
 * or that it could not settle (`balance_proof_due`, as read now: hand it back to `recordBalanceCheck`), and `from`,
 * the earlier of that and the day of an open exception. Null when nothing is owed.
 */
export async function balanceProofOwed(
  db: Kysely<Database>,
  connectionId: string,
): Promise<{ from: string | null; due: string | null }> {
  const { rows } = await sql<{ from: string | null; due: string | null }>`
    select least(due, exception)::text as from, due::text as due from (select
      (select due_from from balance_proof_due where connection_id = ${connectionId}) as due,
      (select min(date) from balance_exceptions
        where connection_id = ${connectionId} and resolved_at is null) as exception) owed
  `.execute(db)
  return { from: rows[0]?.from ?? null, due: rows[0]?.due ?? null }
}

/**
 * Records one proof run of a connection, of every day or of the days from `dateGte` on: opens or refreshes an
 * exception for every day that did not add up, resolves every open exception in its range the run found adding up
 * again, and keeps the earliest day it could not settle as owed to the next run. One transaction.
 */
export async function recordBalanceCheck(
  db: Kysely<Database>,
  run: {
    checkId: string
    connectionId: string
    problems: readonly BalanceExceptionDay[]
    /** Days that could not be proved this time: an exception open for one stays as it is, neither seen nor resolved. */
    unproved?: ReadonlyArray<{ accountId: string; date: string }>
    /** The first day the run proved (inclusive ISO date); every day when absent. */
    dateGte?: string
    /** `balance_proof_due` as the run read it before proving (`balanceProofOwed`): a day owed since stays owed. */
    dueSeen: string | null
    now: Date
  },
): Promise<{ open: number; resolved: number }> {
  return db.transaction().execute(async (trx) => {
    const unproved = run.unproved ?? []
    if (unproved.length > 0) {
      await sql`
        update balance_exceptions e set last_check_id = ${run.checkId}
        from unnest(${unproved.map((d) => d.accountId)}::uuid[], ${unproved.map((d) => d.date)}::date[]) as d(account_id, date)
        where e.resolved_at is null and e.account_id = d.account_id and e.date = d.date
      `.execute(trx)
    }
    for (const day of run.problems) {
      await trx
        .insertInto('balance_exceptions')
        .values({
          connection_id: day.connectionId,
          account_id: day.accountId,
          date: day.date,
          currency: day.currency,
          mirrored_posted_sum: day.mirroredPostedSum,
          bank_delta: day.bankDelta,
          ledger_balance: day.ledgerBalance,
          previous_ledger_balance: day.previousLedgerBalance,
          problem: day.problemCodes.join(','),
          first_seen_at: run.now,
          last_seen_at: run.now,
          last_check_id: run.checkId,
        })
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'date'])
            .where('resolved_at', 'is', null)
            .doUpdateSet((eb) => ({
              currency: eb.ref('excluded.currency'),
              mirrored_posted_sum: eb.ref('excluded.mirrored_posted_sum'),
              bank_delta: eb.ref('excluded.bank_delta'),
              ledger_balance: eb.ref('excluded.ledger_balance'),
              previous_ledger_balance: eb.ref('excluded.previous_ledger_balance'),
              problem: eb.ref('excluded.problem'),
              last_seen_at: eb.ref('excluded.last_seen_at'),
              last_check_id: eb.ref('excluded.last_check_id'),
              sync_runs_seen: eb('balance_exceptions.sync_runs_seen', '+', 1),
            })),
        )
        .execute()
    }
    let resolving = trx
      .updateTable('balance_exceptions')
      .set({ resolved_at: run.now })
      .where('connection_id', '=', run.connectionId)
      .where('resolved_at', 'is', null)
      .where('last_check_id', '!=', run.checkId)
    if (run.dateGte !== undefined) resolving = resolving.where('date', '>=', run.dateGte)
    const resolved = await resolving.executeTakeFirst()
    // The run's range started at or before the day owed when it began, so what it could not settle is what is owed
    // now; a day a page synced meanwhile owed stays owed (the row changed since `dueSeen`).
    const owed = unproved.reduce<string | null>(
      (min, day) => (min === null || day.date < min ? day.date : min),
      null,
    )
    await trx
      .deleteFrom('balance_proof_due')
      .where('connection_id', '=', run.connectionId)
      .where(sql<boolean>`due_from is not distinct from ${run.dueSeen}::date`)
      .execute()
    if (owed !== null) {
      await trx
        .insertInto('balance_proof_due')
        .values({ connection_id: run.connectionId, due_from: owed })
        .onConflict((oc) =>
          oc
            .column('connection_id')
            .doUpdateSet({ due_from: sql`least(balance_proof_due.due_from, excluded.due_from)` }),
        )
        .execute()
    }
    return { open: run.problems.length, resolved: Number(resolved.numUpdatedRows) }
  })
}

/** Open exceptions (of one connection, or all; only persistent ones if asked), oldest day first. */
export async function listOpenBalanceExceptions(
  db: Kysely<Database>,
  filter: { connectionId?: string; persistentOnly?: boolean } = {},
): Promise<BalanceException[]> {
  let query = db.selectFrom('balance_exceptions').selectAll().where('resolved_at', 'is', null)
  if (filter.connectionId !== undefined) query = query.where('connection_id', '=', filter.connectionId)
  if (filter.persistentOnly) query = query.where('sync_runs_seen', '>=', PERSISTENT_AFTER_RUNS)
  const rows = await query.orderBy('connection_id').orderBy('account_id').orderBy('date').execute()
  return rows.map((row) => ({ ...row, persistent: row.sync_runs_seen >= PERSISTENT_AFTER_RUNS }))
}

/**
 * Days that still did not add up after the sync following the one that found them: data-integrity problems
 * that a re-sync did not explain away, for the alerting to report.
 */
export async function listPersistentBalanceExceptions(
  db: Kysely<Database>,
  filter: { connectionId?: string } = {},
): Promise<BalanceException[]> {
  return listOpenBalanceExceptions(db, { ...filter, persistentOnly: true })
}
