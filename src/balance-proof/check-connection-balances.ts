import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import {
  balanceProofOwed,
  recordBalanceCheck,
  type BalanceExceptionDay,
  type Database,
} from '../store/index.js'
import { earlierDate } from '../sync/index.js'
import { streamBalanceProof, type AccountProofDay } from './stream-balance-proof.js'

export type BalanceCheckDeps = {
  db: Kysely<Database>
  clock: Clock
  /**
   * Re-reads the bank's balance rows of the connection from `dateGte` on into the mirror. Balance rows are
   * mutable projections and a sync re-reads them only from the earliest posted date its events name (a removed
   * event names none), so a day is re-read before it is declared an exception.
   */
  rereadBalances?(connectionId: string, dateGte: string): Promise<void>
}

export type BalanceCheckResult = {
  /** The first day proved; null when every day was. */
  from: string | null
  daysChecked: number
  /** Days that did not add up (after the re-read, if any). */
  problems: AccountProofDay[]
  /** Days that did not add up while awaiting the next sync (AccountProofDay.awaitingSync): not exceptions. */
  unproved: AccountProofDay[]
  resolved: number
  reread: boolean
}

/**
 * Proves one connection's accounts and days and records the outcome: a day that does not add up opens (or keeps
 * open) a balance exception; an open exception whose day adds up now is resolved.
 *
 * `changedFrom` is the earliest day a sync changed (its transactions or balance rows): only days from there on can
 * have changed, so only they are proved, together with the days still owed a look (days synced pages changed since
 * the last proof, an open exception's, a day the bank was ahead on). Null: nothing but what is owed.
 * @defaultValue 'all': every day
 */
export async function checkConnectionBalances(
  deps: BalanceCheckDeps,
  connectionId: string,
  changedFrom: string | null | 'all' = 'all',
): Promise<BalanceCheckResult> {
  const owed = await balanceProofOwed(deps.db, connectionId)
  // The first day proved; undefined: every day.
  const scope = changedFrom === 'all' ? undefined : (earlierDate(changedFrom, owed.from) ?? undefined)
  if (scope === undefined && changedFrom !== 'all')
    return { from: null, daysChecked: 0, problems: [], unproved: [], resolved: 0, reread: false }
  let proof = await collectProblems(deps.db, connectionId, scope)
  let reread = false
  if (proof.problems.length > 0 && deps.rereadBalances) {
    const earliest = proof.problems.reduce(
      (min, day) => (day.date < min ? day.date : min),
      proof.problems[0]!.date,
    )
    await deps.rereadBalances(connectionId, earliest)
    proof = await collectProblems(deps.db, connectionId, scope)
    reread = true
  }
  const problems = proof.problems.filter((day) => !day.awaitingSync)
  const unproved = proof.problems.filter((day) => day.awaitingSync)
  const { resolved } = await recordBalanceCheck(deps.db, {
    checkId: randomUUID(),
    connectionId,
    problems: problems.map(toExceptionDay),
    unproved,
    ...(scope === undefined ? {} : { dateGte: scope }),
    dueSeen: owed.due,
    now: deps.clock.now(),
  })
  return { from: scope ?? null, daysChecked: proof.daysChecked, problems, unproved, resolved, reread }
}

async function collectProblems(
  db: Kysely<Database>,
  connectionId: string,
  dateGte: string | undefined,
): Promise<{ daysChecked: number; problems: AccountProofDay[] }> {
  let daysChecked = 0
  const problems: AccountProofDay[] = []
  const scope = dateGte === undefined ? { connectionId } : { connectionId, dateGte }
  for await (const day of streamBalanceProof(db, scope)) {
    daysChecked++
    if (!day.ok) problems.push(day)
  }
  return { daysChecked, problems }
}

function toExceptionDay(day: AccountProofDay): BalanceExceptionDay {
  return {
    connectionId: day.connectionId,
    accountId: day.accountId,
    date: day.date,
    currency: day.currency,
    mirroredPostedSum: day.mirroredPostedSum,
    bankDelta: day.bankDelta,
    ledgerBalance: day.ledgerBalance,
    previousLedgerBalance: day.previousLedgerBalance,
    problemCodes: day.problemCodes,
  }
}
