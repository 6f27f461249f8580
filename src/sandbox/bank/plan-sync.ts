import { Decimal } from 'decimal.js'
import type { Transaction } from '../../api-client/index.js'
import type { Random } from '../random.js'
import { generateDayActivity, type ActivityAccount, type GeneratedTransaction } from './generate-activity.js'
import { addDays, datesBetween } from './iso-date.js'

export type TransactionChanges = Partial<
  Pick<Transaction, 'status' | 'postedDate' | 'amount' | 'description'>
>

/** What one sync of a connection reports: new lines, changed lines (incl. pending → posted), deleted lines. */
export type SyncPlan = {
  added: GeneratedTransaction[]
  changed: Array<{ id: string; changes: TransactionChanges }>
  removed: string[]
}

/** The most days one sync backfills when the bank has not synced for a long time. */
export const MAX_SYNC_GAP_DAYS = 120

/** Lines settle one day after authorisation, unless the sync happens sooner. */
const SETTLEMENT_DAYS = 1

/**
 * The initial historical sync: every day from the accounts' opening date to today. Lines of the last two days
 * may still be pending (their postedDate is the authorisation date); older ones have settled.
 */
export function planHistory(
  random: Random,
  accounts: readonly ActivityAccount[],
  openingDate: string,
  today: string,
): GeneratedTransaction[] {
  const recent = addDays(today, -1)
  const balances = openingBalances(accounts)
  const out: GeneratedTransaction[] = []
  for (const date of datesBetween(openingDate, today)) {
    for (const account of accounts) {
      const lines = generateDayActivity(random, account, date, {
        pendingChance: date >= recent ? 0.5 : 0,
        balance: balances.get(account.id),
      })
      track(balances, lines)
      out.push(...lines)
    }
  }
  return out
}

/** Running balances (posted and pending) the generator leans on; only for accounts with a known opening. */
function openingBalances(accounts: readonly ActivityAccount[]): Map<string, Decimal> {
  const balances = new Map<string, Decimal>()
  for (const a of accounts)
    if (a.openingBalance !== undefined) balances.set(a.id, new Decimal(a.openingBalance))
  return balances
}

function track(balances: Map<string, Decimal>, lines: readonly Transaction[]): void {
  for (const line of lines) {
    const current = balances.get(line.accountId)
    if (current && line.amount) balances.set(line.accountId, current.plus(line.amount))
  }
}

/**
 * A later sync: new lines for every day since the previous sync (a thin slice when it already ran today),
 * pending lines from before today settle (a card line's final amount may differ, e.g. a tip) or, now and then,
 * are voided and disappear, and a recent posted line may be enriched by the bank.
 */
export function planSync(
  random: Random,
  input: {
    accounts: readonly ActivityAccount[]
    transactions: readonly Transaction[]
    lastSyncDate: string | null
    today: string
  },
): SyncPlan {
  const { accounts, transactions, today } = input
  const earliest = addDays(today, -MAX_SYNC_GAP_DAYS)
  const last = input.lastSyncDate ?? today
  const from = addDays(last < earliest ? earliest : last, 1)
  const balances = openingBalances(accounts)
  const currencies = new Map(accounts.map((a) => [a.id, a.currency]))
  track(
    balances,
    transactions.filter((t) => t.currency === currencies.get(t.accountId)),
  )
  const added: GeneratedTransaction[] = []
  const generate = (
    account: ActivityAccount,
    date: string,
    options: { pendingChance: number; scale?: number },
  ) => {
    const lines = generateDayActivity(random, account, date, {
      ...options,
      balance: balances.get(account.id),
    })
    track(balances, lines)
    added.push(...lines)
  }
  for (const date of datesBetween(from, today)) {
    for (const account of accounts) generate(account, date, { pendingChance: date === today ? 0.5 : 0 })
  }
  if (last >= today) {
    for (const account of accounts) generate(account, today, { pendingChance: 0.5, scale: 0.2 })
  }

  const changed: SyncPlan['changed'] = []
  const removed: string[] = []
  for (const transaction of transactions) {
    if (transaction.status !== 'pending' || !transaction.postedDate || transaction.postedDate >= today)
      continue
    if (random.chance(0.08)) {
      removed.push(transaction.id)
      continue
    }
    const settled = addDays(transaction.postedDate, SETTLEMENT_DAYS)
    const changes: TransactionChanges = { status: 'posted', postedDate: settled > today ? today : settled }
    if (transaction.rail === 'card' && transaction.amount && random.chance(0.2)) {
      changes.amount = new Decimal(transaction.amount)
        .mul(1 + random.int(5, 20) / 100)
        .toDecimalPlaces(2)
        .toFixed(2)
    }
    changed.push({ id: transaction.id, changes })
  }

  const weekAgo = addDays(today, -7)
  const enrichable = transactions.filter(
    (t) => t.status === 'posted' && t.postedDate && t.postedDate >= weekAgo && t.counterpartyName,
  )
  if (enrichable.length > 0 && random.chance(0.5)) {
    const target = random.pick(enrichable)
    changed.push({
      id: target.id,
      changes: {
        description: `${target.counterpartyName}${target.paymentReference ? ` ${target.paymentReference}` : ''}`,
      },
    })
  }
  return { added, changed, removed }
}
