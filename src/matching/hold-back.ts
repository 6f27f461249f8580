import { createHash } from 'node:crypto'
import { Decimal } from 'decimal.js'
import {
  suggestionKey,
  transactionPhase,
  type Allocation,
  type Evidence,
  type MatchException,
  type MatchPaymentsResult,
  type PaymentReturn,
} from '../matcher/index.js'
import type { ShadowDecisionWrite } from '../store/index.js'
import type { ClosedSet } from './load-closed-set.js'

/** The result to write with no automatic action in it, and the actions held back (for shadow mode's record). */
export type HeldBack = { result: MatchPaymentsResult; decisions: ShadowDecisionWrite[] }

const HELD_REASON =
  'automatic matching is not on (shadow or off mode): the engine would have applied this by itself'

function uniqueReasons(evidence: readonly Evidence[]): string[] {
  return [...new Set(evidence.map((item) => item.text))]
}

function digest(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)
}

/**
 * A bank line whose automatic settlement would be new: the engine allocates it (not customer credit a person put
 * on account) and nothing is in force for it yet. A line settled while automation was on, or one a person
 * decided (matches, dispositions), keeps what it has.
 */
function newSettlements(set: ClosedSet, result: MatchPaymentsResult, excluded: ReadonlySet<string>) {
  const held = new Set(set.allocations.map((row) => row.transaction_id))
  for (const disposition of set.dispositions) held.add(disposition.transactionId)
  const byTransaction = new Map<string, Allocation[]>()
  for (const allocation of result.allocations) {
    const id = allocation.transactionId
    if (allocation.madeBy !== 'engine' || allocation.rule === 'credit' || held.has(id) || excluded.has(id))
      continue
    byTransaction.set(id, [...(byTransaction.get(id) ?? []), allocation])
  }
  return byTransaction
}

/** Returns the engine would make now that are not in force (their `payment_returned` is not open already). */
function newReturns(
  result: MatchPaymentsResult,
  inForce: ReadonlySet<string>,
  excluded: ReadonlySet<string>,
) {
  const made = new Set(
    result.exceptions.filter((exception) => exception.type === 'payment_returned').map((item) => item.key),
  )
  return result.returns.filter((item) => {
    const key = `payment_returned:${item.outflowTransactionId}:${item.inflowTransactionId}`
    return made.has(key) && !inForce.has(key) && !excluded.has(item.outflowTransactionId)
  })
}

function settlementDecision(set: ClosedSet, id: string, allocations: Allocation[]): ShadowDecisionWrite {
  const sorted = [...allocations].sort((a, b) => (a.invoiceId < b.invoiceId ? -1 : 1))
  const evidence = sorted.flatMap((allocation) => allocation.evidence)
  return {
    transactionId: id,
    kind: 'allocate',
    digest: digest(sorted.map((item) => [item.invoiceId, item.amount, item.writeOff, item.settled])),
    amount: sorted.reduce((sum, item) => sum.plus(item.amount), new Decimal(0)).toFixed(),
    currency: set.transactions.get(id)?.transaction.currency ?? '',
    invoiceIds: [...new Set(sorted.map((item) => item.invoiceId))],
    confidence: Math.min(...sorted.map((item) => item.confidence)),
    decision: {
      allocations: sorted.map((item) => ({
        invoiceId: item.invoiceId,
        amount: item.amount,
        writeOff: item.writeOff,
        writeOffReason: item.writeOffReason,
        rule: item.rule,
        confidence: item.confidence,
        settled: item.settled,
        evidence: item.evidence,
      })),
      return: null,
      reasons: uniqueReasons(evidence),
    },
  }
}

/** What the inflow still pays the returned invoices once the return is taken (all of it back: nothing). */
function inflowKeeps(result: MatchPaymentsResult, item: PaymentReturn): string {
  if (!item.partial) return '0'
  return result.allocations
    .filter((a) => a.transactionId === item.inflowTransactionId && item.invoiceIds.includes(a.invoiceId))
    .reduce((sum, a) => sum.plus(a.amount), new Decimal(0))
    .toFixed()
}

function returnDecision(
  set: ClosedSet,
  result: MatchPaymentsResult,
  item: PaymentReturn,
): ShadowDecisionWrite {
  return {
    transactionId: item.outflowTransactionId,
    kind: 'return',
    digest: digest(['return', item.inflowTransactionId, item.amount, item.target]),
    amount: item.amount,
    currency: set.transactions.get(item.outflowTransactionId)?.transaction.currency ?? '',
    invoiceIds: item.invoiceIds,
    // A return has no score of its own: its evidence (reason code, wording, same payer or reference) decides.
    confidence: Math.min(
      100,
      item.evidence.reduce((sum, piece) => sum + Math.max(piece.points, 0), 0),
    ),
    decision: {
      allocations: [],
      return: {
        inflowTransactionId: item.inflowTransactionId,
        amount: item.amount,
        partial: item.partial,
        target: item.target,
        inflowKeeps: inflowKeeps(result, item),
        evidence: item.evidence,
      },
      reasons: uniqueReasons(item.evidence),
    },
  }
}

/** What a person sees instead of a held-back action: a suggestion to accept, or a return to decide. */
function heldException(set: ClosedSet, decision: ShadowDecisionWrite): MatchException {
  const entry = set.transactions.get(decision.transactionId)
  const settled = entry ? transactionPhase(entry.transaction) === 'settled' : true
  const evidence = decision.decision.allocations.flatMap((item) => item.evidence)
  const reasons = [HELD_REASON, ...decision.decision.reasons]
  const base = { transactionId: decision.transactionId, transferId: null, amount: decision.amount, settled }
  const returned = decision.decision.return
  if (returned) {
    return {
      ...base,
      key: `ambiguous_reference:${decision.transactionId}:return-of-${returned.inflowTransactionId}`,
      type: 'ambiguous_reference',
      invoiceIds: decision.invoiceIds,
      confidence: null,
      reasons: [
        `${HELD_REASON} (a return of payment ${returned.inflowTransactionId})`,
        ...decision.decision.reasons,
      ],
      evidence: returned.evidence,
    }
  }
  const invoiceIds = [...decision.invoiceIds].sort()
  const rejected = set.rejectedSuggestions.some(
    (item) =>
      suggestionKey(item.transactionId, item.invoiceIds) ===
      suggestionKey(decision.transactionId, invoiceIds),
  )
  // A person rejected what the engine would do: it is not offered again; the money waits for a person.
  if (rejected) {
    return {
      ...base,
      key: `unmatched_payment:${decision.transactionId}:`,
      type: 'unmatched_payment',
      invoiceIds: [],
      confidence: null,
      reasons: ['a person rejected what the engine would have applied', ...decision.decision.reasons],
      evidence,
    }
  }
  return {
    ...base,
    key: `suggested_match:${decision.transactionId}:${invoiceIds.join(',')}`,
    type: 'suggested_match',
    invoiceIds,
    confidence: decision.confidence,
    reasons,
    evidence,
  }
}

/**
 * Shadow and off mode (issue 25): runs `match` again without each bank line whose automatic action (an allocation,
 * its write-off, a return) would be new, until no new one is left (a line held back can free an invoice another
 * line would then settle). Each held-back line keeps the other exceptions the engine raised for it (an
 * overpayment's surplus) and gets one for the action: a suggestion to accept, or for a return an
 * `ambiguous_reference` on the outflow. `returnsInForce`: the keys of the open `payment_returned` exceptions.
 */
export function holdBackAutomaticActions(
  set: ClosedSet,
  match: (excluded: ReadonlySet<string>) => MatchPaymentsResult,
  returnsInForce: ReadonlySet<string>,
): HeldBack {
  const excluded = new Set<string>()
  const decisions: ShadowDecisionWrite[] = []
  const kept: MatchException[] = []
  let result = match(excluded)
  for (;;) {
    // Returns first: a held return is not taken, so a settlement held with it must be sized without it (a partial
    // return would otherwise shrink the inflow's suggestion by what never went back).
    const returns = newReturns(result, returnsInForce, excluded)
    if (returns.length > 0) {
      for (const item of returns) {
        decisions.push(returnDecision(set, result, item))
        excluded.add(item.outflowTransactionId)
      }
      result = match(excluded)
      continue
    }
    const settlements = newSettlements(set, result, excluded)
    if (settlements.size === 0) break
    for (const [id, allocations] of settlements) {
      decisions.push(settlementDecision(set, id, allocations))
      kept.push(...result.exceptions.filter((exception) => exception.transactionId === id))
      excluded.add(id)
    }
    result = match(excluded)
  }
  if (decisions.length === 0) return { result, decisions }
  return {
    result: {
      ...result,
      exceptions: [...result.exceptions, ...kept, ...decisions.map((d) => heldException(set, d))],
    },
    decisions,
  }
}
