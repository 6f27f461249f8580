import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import { recordBalanceCheck, type BalanceExceptionDay, type Database } from '../store/index.js'
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
  daysChecked: number
  /** Days that did not add up (after the re-read, if any). */
  problems: AccountProofDay[]
  /** Days that did not add up while awaiting the next sync (AccountProofDay.awaitingSync): not exceptions. */
  unproved: AccountProofDay[]
  resolved: number
  reread: boolean
}

/**
 * Proves every account and day of one connection and records the outcome: a day that does not add up opens (or
 * keeps open) a balance exception; an open exception whose day adds up now is resolved.
 */
export async function checkConnectionBalances(
  deps: BalanceCheckDeps,
  connectionId: string,
): Promise<BalanceCheckResult> {
  let proof = await collectProblems(deps.db, connectionId)
  let reread = false
  if (proof.problems.length > 0 && deps.rereadBalances) {
    const earliest = proof.problems.reduce(
      (min, day) => (day.date < min ? day.date : min),
      proof.problems[0]!.date,
    )
    await deps.rereadBalances(connectionId, earliest)
    proof = await collectProblems(deps.db, connectionId)
    reread = true
  }
  const problems = proof.problems.filter((day) => !day.awaitingSync)
  const unproved = proof.problems.filter((day) => day.awaitingSync)
  const { resolved } = await recordBalanceCheck(deps.db, {
    checkId: randomUUID(),
    connectionId,
    problems: problems.map(toExceptionDay),
    unproved,
    now: deps.clock.now(),
  })
  return { daysChecked: proof.daysChecked, problems, unproved, resolved, reread }
}

async function collectProblems(
  db: Kysely<Database>,
  connectionId: string,
): Promise<{ daysChecked: number; problems: AccountProofDay[] }> {
  let daysChecked = 0
  const problems: AccountProofDay[] = []
  for await (const day of streamBalanceProof(db, { connectionId })) {
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
