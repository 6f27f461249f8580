import { randomUUID } from 'node:crypto'
import {
  findTransfer,
  insertTransferAttempt,
  listTransferAttempts,
  lockTransfer,
  type TransferRow,
} from '../store/index.js'
import { presentTransfer, type TransferRecord } from './present-transfer.js'
import { sendTransferAttempt, type PendingAttempt } from './send-transfer-attempt.js'
import type { TransferContext } from './transfer-context.js'
import { TransferError } from './transfer-error.js'

/** The statuses the bank retries (the sandbox answers 409 transfer_not_retryable to any other). */
const RETRYABLE: ReadonlySet<string> = new Set(['failed', 'returned'])

/**
 * Retries a transfer, or resumes it. A request whose answer never came (a crash or a timeout after its key was
 * stored) is sent again with that same key, so the bank makes no second transfer; otherwise a failed or returned
 * transfer is retried at the bank with a new idempotency key, stored before the call.
 * @param id bankrec's id or the bank's transfer id
 * @throws TransferError not_found, transfer_not_retryable (409), the bank's refusal, or bank_unavailable (502)
 */
export async function retryTransfer(ctx: TransferContext, id: string): Promise<TransferRecord> {
  const found = await findTransfer(ctx.db, id)
  if (!found) throw new TransferError('not_found', 'not_found', `No transfer ${JSON.stringify(id)}.`)
  const { row, attempt } = await ctx.db.transaction().execute(async (trx) => {
    // Locked so two retries at once share one attempt instead of sending two.
    const row = (await lockTransfer(trx, found.id))!
    const attempts = await listTransferAttempts(trx, row.id)
    const pending = attempts.findLast((a) => a.state === 'pending')
    if (pending) {
      return {
        row,
        attempt: {
          kind: pending.kind,
          idempotencyKey: pending.idempotency_key,
          createdAt: pending.created_at,
        },
      }
    }
    refuseUnlessRetryable(row)
    const attempt: PendingAttempt = {
      kind: 'retry',
      idempotencyKey: (ctx.generateId ?? randomUUID)(),
      createdAt: ctx.clock.now(),
    }
    await insertTransferAttempt(trx, { ...attempt, transferId: row.id, now: attempt.createdAt })
    return { row, attempt }
  })
  const sent = await sendTransferAttempt(ctx, row, attempt)
  return presentTransfer(sent, await listTransferAttempts(ctx.db, sent.id))
}

function refuseUnlessRetryable(row: TransferRow): void {
  if (row.status === 'rejected') {
    throw new TransferError(
      'conflict',
      'transfer_not_retryable',
      `The bank refused transfer ${row.id} when it was created (${row.rejection?.message ?? 'no reason given'}); ` +
        'fix the request and create a new transfer.',
      { transferId: row.id },
    )
  }
  if (!RETRYABLE.has(row.status)) {
    throw new TransferError(
      'conflict',
      'transfer_not_retryable',
      `Only a failed or returned transfer can be retried; transfer ${row.id} is ${row.status}.`,
      { transferId: row.id },
    )
  }
}
