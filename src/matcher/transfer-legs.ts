import { latestVersions, transactionPhase } from './canonical-order.js'
import { DEFAULT_MATCH_CONFIG, type MatchConfig } from './config.js'
import { formatUnits, toUnits, type Money } from './money.js'
import { TokenTrie } from './token-trie.js'
import { tokenKey } from './tokenize.js'
import { REFERENCE_FIELDS, type MatchException, type MatchTransaction } from './types.js'

/** A transfer initiated through bankrec. `amount` is what moved: executedAmount when known, else requested. */
export type MatchTransfer = {
  id: string
  clientReference: string
  amount: Money
  currency: string
  sourceAccountId: string
  destinationAccountId: string
  status: string
  createdAt: string
  /** When the transfer reached `completed` (its updatedAt then). */
  completedAt?: string | null
}

/** The two legs found for a transfer, by transaction id. */
export type TransferLegs = {
  transferId: string
  outflowTransactionId: string | null
  inflowTransactionId: string | null
}

export type TransferLegsResult = { legs: TransferLegs[]; exceptions: MatchException[] }

function compareTransfers(a: MatchTransfer, b: MatchTransfer): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

function namedTransfers(trie: TokenTrie<MatchTransfer>, transaction: MatchTransaction): Set<MatchTransfer> {
  const named = new Set<MatchTransfer>()
  for (const field of REFERENCE_FIELDS) {
    const text = transaction[field]
    if (!text) continue
    for (const match of trie.scan(tokenKey(text))) for (const transfer of match.values) named.add(transfer)
  }
  return named
}

/**
 * Rule 8: a transfer's legs are the outflow on its source account and the inflow on its destination account that
 * carry its clientReference (compared as tokens, like invoice numbers) and exactly its amount in its currency.
 * Transactions claim legs in canonical order, transfers are offered oldest first, and a transaction is the leg of
 * one transfer at most. A completed transfer with a leg still missing `transferLegWindowSeconds` after it
 * completed is a transfer_leg_missing exception. `now` comes from the caller's clock.
 */
export function matchTransferLegs(input: {
  transfers: readonly MatchTransfer[]
  transactions: readonly MatchTransaction[]
  now: Date
  config?: MatchConfig
}): TransferLegsResult {
  const config = input.config ?? DEFAULT_MATCH_CONFIG
  const transfers = [...new Map(input.transfers.map((transfer) => [transfer.id, transfer])).values()].sort(
    compareTransfers,
  )
  const trie = new TokenTrie<MatchTransfer>()
  for (const transfer of transfers) trie.add(tokenKey(transfer.clientReference), transfer)
  const legs = new Map(
    transfers.map((transfer) => [
      transfer.id,
      { transferId: transfer.id, outflowTransactionId: null, inflowTransactionId: null } as TransferLegs,
    ]),
  )
  for (const transaction of latestVersions(input.transactions)) {
    if (transactionPhase(transaction) === 'inactive') continue
    const amount = toUnits(transaction.amount)
    const candidates = [...namedTransfers(trie, transaction)].sort(compareTransfers)
    for (const transfer of candidates) {
      const found = legs.get(transfer.id) as TransferLegs
      const expected = toUnits(transfer.amount)
      if (transaction.currency !== transfer.currency || (amount !== expected && amount !== -expected))
        continue
      if (amount < 0n && transaction.accountId === transfer.sourceAccountId && !found.outflowTransactionId) {
        found.outflowTransactionId = transaction.id
        break
      }
      if (
        amount > 0n &&
        transaction.accountId === transfer.destinationAccountId &&
        !found.inflowTransactionId
      ) {
        found.inflowTransactionId = transaction.id
        break
      }
    }
  }
  const exceptions: MatchException[] = []
  const windowMs = config.transferLegWindowSeconds * 1000
  for (const transfer of transfers) {
    const found = legs.get(transfer.id) as TransferLegs
    if (transfer.status !== 'completed' || !transfer.completedAt) continue
    if (found.outflowTransactionId && found.inflowTransactionId) continue
    if (input.now.getTime() - Date.parse(transfer.completedAt) <= windowMs) continue
    const missing = [
      found.outflowTransactionId ? null : `no outflow on source account ${transfer.sourceAccountId}`,
      found.inflowTransactionId ? null : `no inflow on destination account ${transfer.destinationAccountId}`,
    ].filter((reason): reason is string => reason !== null)
    exceptions.push({
      key: `transfer_leg_missing:${transfer.id}`,
      type: 'transfer_leg_missing',
      transactionId: found.outflowTransactionId ?? found.inflowTransactionId,
      invoiceIds: [],
      transferId: transfer.id,
      amount: formatUnits(toUnits(transfer.amount)),
      confidence: null,
      settled: true,
      evidence: [],
      reasons: missing.map(
        (reason) =>
          `${reason} carrying "${transfer.clientReference}" for ${formatUnits(toUnits(transfer.amount))} ` +
          `${transfer.currency} within ${config.transferLegWindowSeconds} s of completion`,
      ),
    })
  }
  return { legs: [...legs.values()], exceptions }
}
