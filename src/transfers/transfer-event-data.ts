import type { TransferAppEvent } from '../alerts/index.js'
import type { TransferRow } from '../store/index.js'

/** The data of transfer.completed and transfer.failed: what the app needs to book or chase the payment. */
export function transferEventData(row: TransferRow, effect: TransferAppEvent): Record<string, unknown> {
  return {
    transferId: row.id,
    bankTransferId: row.bank_transfer_id,
    idempotencyKey: row.idempotency_key,
    status: effect.status,
    clientReference: row.client_reference,
    amount: { value: (row.request.amount as { value: string }).value, currency: row.currency },
    executedAmount: row.executed_amount,
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    failureReason: effect.failureReason === null ? null : { message: effect.failureReason },
    observedAt: effect.observedAt,
  }
}
