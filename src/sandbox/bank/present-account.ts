import type { Account } from '../../api-client/index.js'
import type { AccountRecord } from '../state.js'
import { dailyBalances, formatAmount, pendingTotal, type BalanceTransaction } from './daily-balances.js'

export type AccountConnectionFacts = { createdAt: Date; updatedAt: Date; lastSyncedAt: Date | null }

/**
 * An account in its API shape. currentBalance is the latest daily ledger balance, availableBalance adds the
 * pending lines, both null when the bank does not expose balances. balanceAsOf is the latest of the last sync
 * and the latest change to the account's lines; updatedAt equals it when present, else the connection's
 * updatedAt; createdAt is the connection's createdAt (seed: a proxy).
 */
export function presentAccount(
  account: AccountRecord,
  connection: AccountConnectionFacts,
  transactions: readonly BalanceTransaction[],
  today: string,
): Account {
  const {
    orgId: _orgId,
    entityId: _entityId,
    openingBalance: _openingBalance,
    openingDate: _openingDate,
    reportsBalances: _reportsBalances,
    exposesBalances: _exposesBalances,
    ...shape
  } = account
  let currentBalance: string | null = null
  let availableBalance: string | null = null
  let balanceAsOf: string | null = null
  if (account.exposesBalances) {
    balanceAsOf = latestOf([connection.lastSyncedAt?.toISOString(), ...transactions.map((t) => t.updatedAt)])
  }
  // No snapshot yet (the initial sync is still running): no balance either.
  if (balanceAsOf) {
    const rows = dailyBalances(account, transactions, today)
    const latest = rows[rows.length - 1]
    if (latest) {
      currentBalance = latest.ledgerBalance
      availableBalance = formatAmount(pendingTotal(account, transactions).plus(latest.ledgerBalance))
    }
  }
  return {
    ...shape,
    paymentIdentifiers: account.paymentIdentifiers.map((p) => ({ ...p, details: { ...p.details } })),
    metadata: { ...(account.metadata ?? {}) },
    accountNumber: null,
    routingNumber: null,
    swiftBic: null,
    currentBalance,
    availableBalance,
    balanceAsOf,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: balanceAsOf ?? connection.updatedAt.toISOString(),
  }
}

function latestOf(values: Array<string | undefined>): string | null {
  let latest: string | null = null
  for (const value of values) if (value && (latest === null || value > latest)) latest = value
  return latest
}
