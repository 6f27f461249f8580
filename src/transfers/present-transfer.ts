import type { BankRefusal, TransferAttemptRow, TransferRow } from '../store/index.js'

export type TransferAttemptRecord = {
  kind: 'create' | 'retry'
  idempotencyKey: string
  /** pending: stored, the bank's answer not (yet) known; answered; rejected: refused by the bank. */
  state: string
  error: BankRefusal | null
  createdAt: string
  answeredAt: string | null
}

/** bankrec's record of a transfer, as the API, the CLI and the library return it. */
export type TransferRecord = {
  /** bankrec's id. */
  id: string
  /** The Idempotency-Key of the create request (the caller's, or generated). */
  idempotencyKey: string
  /** The bank's transfer id; null until the bank has answered the create request. */
  bankTransferId: string | null
  /** submitting (no answer yet), rejected (refused by the bank), or the bank's transfer status. */
  status: string
  clientReference: string
  amount: { value: string; currency: string }
  sourceAccountId: string
  destinationAccountId: string
  /** The create body sent to the bank, exactly as sent. */
  request: Record<string, unknown>
  failureReason: { message: string } | null
  executedAmount: { type: string; value: string; currency: string } | null
  /** Why the bank refused the create request. */
  rejection: BankRefusal | null
  attempts: TransferAttemptRecord[]
  createdAt: string
  updatedAt: string
  /** The bank's updatedAt as last seen. */
  bankUpdatedAt: string | null
  completedAt: string | null
  /** When the tracker polls the bank next; null once terminal. */
  nextPollAt: string | null
}

const iso = (date: Date | null) => date?.toISOString() ?? null

export function presentTransfer(row: TransferRow, attempts: TransferAttemptRow[]): TransferRecord {
  return {
    id: row.id,
    idempotencyKey: row.idempotency_key,
    bankTransferId: row.bank_transfer_id,
    status: row.status,
    clientReference: row.client_reference,
    amount: { value: (row.request.amount as { value: string }).value, currency: row.currency },
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    request: row.request,
    failureReason: row.failure_reason,
    executedAmount: row.executed_amount,
    rejection: row.rejection,
    attempts: attempts.map((a) => ({
      kind: a.kind,
      idempotencyKey: a.idempotency_key,
      state: a.state,
      error: a.error,
      createdAt: a.created_at.toISOString(),
      answeredAt: iso(a.answered_at),
    })),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    bankUpdatedAt: iso(row.bank_updated_at),
    completedAt: iso(row.completed_at),
    nextPollAt: iso(row.next_poll_at),
  }
}
