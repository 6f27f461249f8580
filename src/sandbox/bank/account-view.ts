import type { Account, AccountBalance } from '../../api-client/index.js'
import type { SandboxContext } from '../context.js'
import type { AccountRecord, TransactionRecord } from '../state.js'
import { dailyBalances } from './daily-balances.js'
import { toIsoDate } from './iso-date.js'
import { presentAccount } from './present-account.js'

/** The transactions of each account, in one pass over the ledger. */
export function transactionsByAccount(ctx: SandboxContext): Map<string, TransactionRecord[]> {
  const index = new Map<string, TransactionRecord[]>()
  for (const transaction of ctx.state.transactions.values()) {
    const list = index.get(transaction.accountId)
    if (list) list.push(transaction)
    else index.set(transaction.accountId, [transaction])
  }
  return index
}

/** Accounts in their API shape, with balances computed from the ledger as of the virtual now. */
export function presentAccounts(ctx: SandboxContext, accounts: readonly AccountRecord[]): Account[] {
  const index = transactionsByAccount(ctx)
  const today = toIsoDate(ctx.clock.now())
  return accounts.map((account) => {
    const connection = ctx.state.connections.get(account.connectionId)
    if (!connection) throw new Error(`account ${account.id} has no connection`)
    return presentAccount(account, connection, index.get(account.id) ?? [], today)
  })
}

/** One account in its API shape (e.g. for the control API's state view or a transfer's balance check). */
export function presentAccountOf(ctx: SandboxContext, account: AccountRecord): Account {
  return presentAccounts(ctx, [account])[0]!
}

/** Daily balance rows of accounts, oldest first per account. */
export function balanceRowsOf(ctx: SandboxContext, accounts: readonly AccountRecord[]): AccountBalance[] {
  const index = transactionsByAccount(ctx)
  const today = toIsoDate(ctx.clock.now())
  return accounts.flatMap((account) => dailyBalances(account, index.get(account.id) ?? [], today))
}
