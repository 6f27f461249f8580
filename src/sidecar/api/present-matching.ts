import type { AllocationRow, MatchExceptionRow } from '../../store/index.js'

export function presentAllocation(row: AllocationRow) {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    invoiceId: row.invoice_id,
    amount: row.amount,
    writeOff: row.write_off,
    /** Why it was written off (bank_fee, discount, credit_note, …) and the ledger account; null without. */
    writeOffReason: row.write_off_reason,
    writeOffAccount: row.write_off_account,
    settled: row.settled,
    rule: row.rule,
    field: row.field,
    matchedReference: row.matched_reference,
    via: row.via,
    confidence: row.confidence,
    madeBy: row.made_by,
    /** The person whose match made it (madeBy person); null for the engine's. */
    actor: row.actor,
    reasons: row.evidence.map((item) => item.text),
    evidence: row.evidence,
    createdAt: row.created_at.toISOString(),
    reversedAt: row.reversed_at ? row.reversed_at.toISOString() : null,
    reversalReason: row.reversal_reason,
  }
}

export function presentException(row: MatchExceptionRow) {
  return {
    key: row.key,
    type: row.type,
    transactionId: row.transaction_id,
    transferId: row.transfer_id,
    invoiceIds: row.invoice_ids,
    amount: row.amount,
    confidence: row.confidence,
    settled: row.settled,
    reasons: row.details.reasons,
    evidence: row.details.evidence ?? [],
    openedAt: row.opened_at.toISOString(),
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
    resolution: row.resolution,
  }
}
