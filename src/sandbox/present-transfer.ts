import type { Transfer } from '../api-client/index.js'
import type { TransferRecord } from './state.js'

/** A transfer record as the API shapes it; the lifecycle's bookkeeping stripped. */
export function presentTransfer(record: TransferRecord): Transfer {
  return {
    id: record.id,
    status: record.status,
    type: record.type,
    requestedAmount: { ...record.requestedAmount },
    sourceAccountId: record.sourceAccountId,
    destination: { ...record.destination },
    transferType: record.transferType,
    clientReference: record.clientReference,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.executedAmount ? { executedAmount: { ...record.executedAmount } } : {}),
    memo: record.memo ?? null,
    ...(record.failureReason ? { failureReason: { ...record.failureReason } } : {}),
  }
}
