import { Decimal } from 'decimal.js'
import type { AccountBalance, Transaction } from '../../api-client/index.js'
import { addDays } from './iso-date.js'

export type BalanceAccount = {
  id: string
  connectionId: string
  entityId: string
  currency: string
  /** Ledger balance at the start of openingDate. */
  openingBalance: string
  openingDate: string
  reportsBalances: boolean
  /** When the account's rows exist from, before any transaction changed them. */
  createdAt: string
}

export type BalanceTransaction = Pick<
  Transaction,
  'status' | 'postedDate' | 'amount' | 'currency' | 'updatedAt'
>

/** A decimal string with at least two places, more only when the amounts carry more. */
export function formatAmount(value: Decimal): string {
  return value.decimalPlaces() > 2 ? value.toFixed() : value.toFixed(2)
}

/**
 * Whether a transaction moves the account's ledger: posted, dated, in the account's currency (a line in another
 * currency models a foreign-currency payment whose booked amount the bank has not converted) and not after today.
 */
function countsToward(account: BalanceAccount, transaction: BalanceTransaction, today: string): boolean {
  return (
    transaction.status === 'posted' &&
    !!transaction.postedDate &&
    transaction.postedDate <= today &&
    transaction.amount !== undefined &&
    (transaction.currency ?? account.currency) === account.currency
  )
}

/**
 * The account's daily balance rows, oldest first, from its opening date (or an earlier posted line) to today:
 * ledgerBalance = opening balance + every posted amount through that date, postedTransactionDelta = posted
 * amounts of that date (pending excluded), updatedAt = the latest change of a posted line on or before that date
 * (the row's value depends on all of them), or the account's creation. Consecutive rows differ by the later
 * row's delta.
 */
export function dailyBalances(
  account: BalanceAccount,
  transactions: readonly BalanceTransaction[],
  today: string,
): AccountBalance[] {
  const byDate = new Map<string, { delta: Decimal; updatedAt: string }>()
  let start = account.openingDate
  for (const transaction of transactions) {
    if (!countsToward(account, transaction, today)) continue
    const date = transaction.postedDate!
    if (date < start) start = date
    const day = byDate.get(date) ?? { delta: new Decimal(0), updatedAt: account.createdAt }
    day.delta = day.delta.plus(transaction.amount!)
    if (transaction.updatedAt && transaction.updatedAt > day.updatedAt) day.updatedAt = transaction.updatedAt
    byDate.set(date, day)
  }
  const rows: AccountBalance[] = []
  let ledger = new Decimal(account.openingBalance)
  let updatedAt = account.createdAt
  for (let date = start; date <= today; date = addDays(date, 1)) {
    const day = byDate.get(date)
    const delta = day?.delta ?? new Decimal(0)
    ledger = ledger.plus(delta)
    if (day && day.updatedAt > updatedAt) updatedAt = day.updatedAt
    rows.push({
      accountId: account.id,
      connectionId: account.connectionId,
      entityId: account.entityId,
      date,
      currency: account.currency,
      ledgerBalance: formatAmount(ledger),
      postedTransactionDelta: formatAmount(delta),
      source: account.reportsBalances ? 'bank' : 'derived',
      updatedAt,
    })
  }
  return rows
}

/** Sum of the pending amounts in the account's currency: what availableBalance adds to the ledger. */
export function pendingTotal(
  account: Pick<BalanceAccount, 'currency'>,
  transactions: readonly BalanceTransaction[],
) {
  return transactions
    .filter(
      (t) =>
        t.status === 'pending' &&
        t.amount !== undefined &&
        (t.currency ?? account.currency) === account.currency,
    )
    .reduce((sum, t) => sum.plus(t.amount!), new Decimal(0))
}
