import type { Kysely } from 'kysely'
import {
  balanceRowBefore,
  proofAccounts,
  proofDays,
  type BalanceProofScope,
  type Database,
} from '../../store/index.js'
import { createAccountProver, type ProofDay } from './prove-account-days.js'

export type AccountProofDay = ProofDay & { connectionId: string; currency: string }

/**
 * The balance proof of every account in scope, day by day in account then date order, streamed from the store
 * (a page of accounts and a page of days at a time), so it runs in flat memory over any mirror.
 */
export async function* streamBalanceProof(
  db: Kysely<Database>,
  scope: BalanceProofScope = {},
): AsyncGenerator<AccountProofDay> {
  for await (const account of proofAccounts(db, scope)) {
    const previous = scope.dateGte ? await balanceRowBefore(db, account.accountId, scope.dateGte) : null
    const prover = createAccountProver(account.accountId, previous)
    for await (const day of proofDays(db, account, scope)) {
      yield { ...prover.prove(day), connectionId: account.connectionId, currency: account.currency }
    }
  }
}
