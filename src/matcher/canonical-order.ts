import type { MatchTransaction } from './types.js'

/**
 * settled: posted money that settles invoices; tentative: pending (and unknown) money that only holds
 * amountPending; inactive: removed, reversed or cancelled, which has no allocations at all (rule 7).
 */
export type TransactionPhase = 'settled' | 'tentative' | 'inactive'

export function transactionPhase(transaction: MatchTransaction): TransactionPhase {
  if (transaction.removed) return 'inactive'
  switch (transaction.status) {
    case 'posted':
      return 'settled'
    case 'pending':
    case 'unknown':
      return 'tentative'
    default:
      return 'inactive'
  }
}

const PHASE_RANK: Record<TransactionPhase, number> = { settled: 0, tentative: 1, inactive: 2 }

/**
 * The one order transactions are allocated in, whatever order they arrived in (rule 9): settled before tentative,
 * so pending money never takes an open amount that posted money needs; then by postedDate, undated last; then
 * by id.
 */
export function compareCanonical(a: MatchTransaction, b: MatchTransaction): number {
  const phase = PHASE_RANK[transactionPhase(a)] - PHASE_RANK[transactionPhase(b)]
  if (phase !== 0) return phase
  const dateA = a.postedDate ?? '\uffff'
  const dateB = b.postedDate ?? '\uffff'
  if (dateA !== dateB) return dateA < dateB ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

function isLater(candidate: MatchTransaction, current: MatchTransaction): boolean {
  if (Boolean(candidate.removed) !== Boolean(current.removed)) return Boolean(candidate.removed)
  const a = candidate.updatedAt ?? ''
  const b = current.updatedAt ?? ''
  if (a !== b) return a > b
  // Same id, same updatedAt, different content: any fixed choice keeps the result independent of arrival order.
  return JSON.stringify(candidate) > JSON.stringify(current)
}

/**
 * One version per transaction id: a removal wins, then the latest updatedAt. Duplicates thus change nothing, and
 * the result is sorted in canonical order.
 */
export function latestVersions(transactions: Iterable<MatchTransaction>): readonly MatchTransaction[] {
  // One transaction is its own latest version: returned as given, not copied (a run mostly has one).
  if (Array.isArray(transactions) && transactions.length === 1) return transactions
  const byId = new Map<string, MatchTransaction>()
  for (const transaction of transactions) {
    const current = byId.get(transaction.id)
    if (!current || isLater(transaction, current)) byId.set(transaction.id, transaction)
  }
  return [...byId.values()].sort(compareCanonical)
}
