import type { Kysely } from 'kysely'
import {
  balanceRowBefore,
  newestMirroredChangeAt,
  proofAccounts,
  proofDays,
  type BalanceProofScope,
  type Database,
} from '../store/index.js'
import { createAccountProver, type ProofDay } from './prove-account-days.js'

export type AccountProofDay = ProofDay & {
  connectionId: string
  currency: string
  /**
   * The day does not add up, but the bank's balance row changed after the newest change the mirror holds: the bank
   * is ahead of the mirror (typically a payment posted since the last sync), not wrong. Proved after the next sync.
   */
  awaitingSync: boolean
}

/**
 * The balance proof of every account in scope, day by day in account then date order, streamed from the store
 * (a page of accounts and a page of days at a time), so it runs in flat memory over any mirror.
 */
export async function* streamBalanceProof(
  db: Kysely<Database>,
  scope: BalanceProofScope = {},
): AsyncGenerator<AccountProofDay> {
  const newestChange = new Map<string, Date | null>()
  for await (const account of proofAccounts(db, scope)) {
    const previous = scope.dateGte ? await balanceRowBefore(db, account.accountId, scope.dateGte) : null
    const prover = createAccountProver(account.accountId, previous)
    if (!newestChange.has(account.connectionId))
      newestChange.set(account.connectionId, await newestMirroredChangeAt(db, account.connectionId))
    const mirroredThrough = newestChange.get(account.connectionId) ?? null
    for await (const day of proofDays(db, account, scope)) {
      const proved = prover.prove(day)
      const awaitingSync =
        !proved.ok &&
        mirroredThrough !== null &&
        day.balanceUpdatedAt !== null &&
        day.balanceUpdatedAt > mirroredThrough
      yield { ...proved, connectionId: account.connectionId, currency: account.currency, awaitingSync }
    }
  }
}
