import type { BankrecEnv } from '../config/index.js'
import { accountsOfKind, type LedgerChart } from '../controls/index.js'
import type { PendingApprovalRow } from '../store/index.js'

/** An operation waiting for a second person as the API and the dashboard's Approvals page show it. */
export function presentPendingApproval(row: PendingApprovalRow, config: BankrecEnv, chart: LedgerChart) {
  // A remittance import books its write-off to its fee reason's account; a credit note to the chart's.
  const account =
    row.account ??
    (row.kind === 'remittance'
      ? (config.MATCH_WRITE_OFF_ACCOUNTS?.[row.reason.split(':')[0] ?? ''] ?? config.MATCH_WRITE_OFF_ACCOUNT)
      : (accountsOfKind(chart, 'credit_note')[0] ?? null))
  return {
    kind: row.kind,
    id: row.id,
    operation: row.operation,
    amount: row.amount,
    currency: row.currency,
    account,
    reason: row.reason,
    madeBy: row.made_by,
    madeByRole: row.made_by_role,
    createdAt: row.created_at.toISOString(),
    invoiceId: row.invoice_id,
    transactionId: row.transaction_id,
  }
}
