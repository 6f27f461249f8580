import type { MatchPaymentsResult } from './match-payments.js'
import type { Evidence, MatchExceptionType } from './types.js'

/** What a matching result did with one payment: applied by the engine, an exception about it, or nothing. */
export type PaymentOutcome = {
  outcome: 'applied' | Exclude<MatchExceptionType, 'overpayment' | 'transfer_leg_missing'> | 'none'
  invoiceIds: string[]
  confidence: number | null
  reasons: string[]
  evidence: Evidence[]
}

export function paymentOutcome(result: MatchPaymentsResult, transactionId: string): PaymentOutcome {
  const applied = result.allocations.filter(
    (item) => item.transactionId === transactionId && item.madeBy === 'engine',
  )
  if (applied.length > 0) {
    const evidence = applied.flatMap((item) => item.evidence)
    return {
      outcome: 'applied',
      invoiceIds: applied.map((item) => item.invoiceId),
      confidence: Math.min(...applied.map((item) => item.confidence)),
      reasons: [...new Set(evidence.map((item) => item.text))],
      evidence,
    }
  }
  const exception = result.exceptions.find(
    (item) =>
      item.transactionId === transactionId &&
      item.type !== 'overpayment' &&
      item.type !== 'transfer_leg_missing',
  )
  if (!exception) return { outcome: 'none', invoiceIds: [], confidence: null, reasons: [], evidence: [] }
  return {
    outcome: exception.type as PaymentOutcome['outcome'],
    invoiceIds: exception.invoiceIds,
    confidence: exception.confidence,
    reasons: exception.reasons,
    evidence: exception.evidence,
  }
}
