import type { Allocator } from './allocate.js'
import { transactionPhase } from './canonical-order.js'
import { reasonsOf } from './evidence.js'
import { formatUnits, toUnits } from './money.js'
import type { Payment } from './payment.js'
import type { Evidence, MatchTransaction, PaymentReturn } from './types.js'
import type { LedgerSet } from './ledger-set.js'

function outflowPayment(outflow: MatchTransaction): Payment {
  return { transaction: outflow, amount: -toUnits(outflow.amount), phase: transactionPhase(outflow) }
}

/** The `payment_returned` exception on the outflow; its key names the returned inflow, so rejecting it undoes it. */
export function raiseReturn(
  allocator: Allocator,
  outflow: MatchTransaction,
  item: PaymentReturn,
  invoiceIds: string[],
): void {
  allocator.raise('payment_returned', outflowPayment(outflow), {
    invoiceIds,
    amount: item.amount,
    reasons: reasonsOf(item.evidence),
    evidence: item.evidence,
  })
  const raised = allocator.exceptions[allocator.exceptions.length - 1]
  if (raised) raised.key = `payment_returned:${item.outflowTransactionId}:${item.inflowTransactionId}`
}

/**
 * The key of a partial return that cannot say what it reverses: the outflow and the inflow it returns (the store's
 * `returnsOfPayments` reaches the outflow from the inflow by it).
 */
function returnAmbiguityKey(outflowId: string, inflowId: string): string {
  return `ambiguous_reference:${outflowId}:return-of-${inflowId}`
}

/**
 * Partial returns, once every payment is allocated: each takes what went back out off the allocation its inflow
 * made to the invoice it returns, which is open again by that much. Every amount stays accounted for: the inflow's
 * allocations and exceptions plus the return are its amount. A return that does not say which invoice, or that is
 * more than the inflow paid that invoice, reverses nothing: an `ambiguous_reference` on the outflow asks a person.
 */
export function takeBackPartialReturns(
  allocator: Allocator,
  ledgers: LedgerSet,
  outflows: readonly MatchTransaction[],
  returns: readonly PaymentReturn[],
): void {
  for (const item of returns) {
    const outflow = outflows.find((transaction) => transaction.id === item.outflowTransactionId)
    if (!item.partial || !outflow) continue
    const units = toUnits(item.amount)
    const at =
      item.target === null
        ? -1
        : allocator.allocations.findIndex(
            (allocation) =>
              allocation.transactionId === item.inflowTransactionId &&
              allocation.invoiceId === item.target &&
              allocation.rule !== 'credit',
          )
    const allocation = allocator.allocations[at]
    const ledger = allocation ? ledgers.get(allocation.invoiceId) : undefined
    const left = allocation ? toUnits(allocation.amount) - units : -1n
    // All of an allocation that also wrote a rest off: undoing the write-off is a person's call.
    if (!allocation || !ledger || left < 0n || (left === 0n && allocation.writeOff !== '0')) {
      const evidence: Evidence[] = [...item.evidence]
      if (item.target !== null) {
        evidence.push({
          code: 'return_exceeds_allocation',
          points: 0,
          text: `the payment paid invoice ${ledgers.get(item.target)?.invoice.number ?? item.target} ${allocation ? `only ${allocation.amount}` : 'nothing'}: nothing is reversed`,
        })
      }
      allocator.raise('ambiguous_reference', outflowPayment(outflow), {
        invoiceIds: item.invoiceIds,
        amount: item.amount,
        reasons: reasonsOf(evidence),
        evidence,
      })
      // The key names the inflow, as a return's does, so removing or changing the inflow reaches this outflow.
      const raised = allocator.exceptions[allocator.exceptions.length - 1]
      if (raised) raised.key = returnAmbiguityKey(item.outflowTransactionId, item.inflowTransactionId)
      continue
    }
    if (allocation.settled) ledger.paid -= units
    else ledger.pending -= units
    if (left > 0n) allocator.allocations[at] = { ...allocation, amount: formatUnits(left) }
    else allocator.allocations.splice(at, 1)
    raiseReturn(allocator, outflow, item, [allocation.invoiceId])
  }
}
