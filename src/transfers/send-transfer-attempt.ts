import {
  BankApiError,
  ValidationError,
  type Transfer,
  type TransferCreateParams,
} from '../api-client/index.js'
import {
  closeTransferAttempt,
  recordBankAnswer,
  recordTransferRejected,
  type BankRefusal,
  type TransferRow,
} from '../store/index.js'
import type { TransferContext } from './transfer-context.js'
import type { DomainErrorKind } from '../errors/index.js'
import { TransferError } from './transfer-error.js'

/**
 * The bank keeps a key for at least 24 hours (seed, Limits). A pending attempt older than this is not resent:
 * the bank may have forgotten its key, and the same request could then become a second transfer.
 */
export const RESUME_WINDOW_MS = 23 * 3_600_000

/** Answers that say the request did not take effect and resending it unchanged cannot help. */
/** The bank's refusals the caller can fix, as the kind of refusal bankrec passes on. */
const REFUSAL_KINDS: ReadonlyMap<number, DomainErrorKind> = new Map([
  [400, 'invalid'],
  [404, 'not_found'],
  [409, 'conflict'],
  [422, 'unprocessable'],
])

function refusalOf(error: unknown): BankRefusal | undefined {
  if (error instanceof ValidationError) return { code: error.code, message: error.message, status: null }
  if (error instanceof BankApiError && error.status !== undefined && REFUSAL_KINDS.has(error.status)) {
    return { code: error.code, message: error.message, status: error.status }
  }
  return undefined
}

export type PendingAttempt = { kind: 'create' | 'retry'; idempotencyKey: string; createdAt: Date }

/**
 * Sends one stored attempt (its key already committed) and records the bank's answer. Without an answer (no
 * connection, timeout, 5xx, 429 after the client's own retries) the attempt stays pending, to be resumed with
 * the same key.
 * @throws TransferError bank_refused (the bank's status) or bank_unavailable (502)
 */
export async function sendTransferAttempt(
  ctx: TransferContext,
  row: TransferRow,
  attempt: PendingAttempt,
): Promise<TransferRow> {
  if (ctx.clock.now().getTime() - attempt.createdAt.getTime() >= RESUME_WINDOW_MS) {
    throw new TransferError(
      'conflict',
      'idempotency_window_passed',
      `The ${attempt.kind} request of transfer ${row.id} was stored on ${attempt.createdAt.toISOString()} and the ` +
        'bank never answered it. Its idempotency key may have expired at the bank, so resending could make a second ' +
        `transfer: look for clientReference ${JSON.stringify(row.client_reference)} at the bank before sending again.`,
      { transferId: row.id },
    )
  }
  let answer: Transfer
  try {
    answer =
      attempt.kind === 'create'
        ? await ctx.client.transfers.create(row.request as TransferCreateParams, {
            idempotencyKey: attempt.idempotencyKey,
          })
        : await ctx.client.transfers.retry(row.bank_transfer_id!, { idempotencyKey: attempt.idempotencyKey })
  } catch (error) {
    const refusal = refusalOf(error)
    const now = ctx.clock.now()
    if (refusal) {
      await ctx.db.transaction().execute(async (trx) => {
        await closeTransferAttempt(trx, attempt.idempotencyKey, { state: 'rejected', error: refusal }, now)
        if (attempt.kind === 'create') await recordTransferRejected(trx, row.id, refusal, now)
      })
      throw new TransferError(
        (refusal.status === null ? undefined : REFUSAL_KINDS.get(refusal.status)) ?? 'invalid',
        refusal.code,
        `The bank refused the ${attempt.kind} request of transfer ${row.id}: ${refusal.message}`,
        {
          transferId: row.id,
          details: error instanceof BankApiError ? error.details : undefined,
          cause: error,
        },
      )
    }
    ctx.logger.warn(
      { transferId: row.id, kind: attempt.kind, err: error },
      'the bank did not answer a transfer request; it stays stored with its idempotency key',
    )
    throw new TransferError(
      'unavailable',
      'bank_unavailable',
      `The bank did not answer the ${attempt.kind} request of transfer ${row.id} ` +
        `(${error instanceof Error ? error.message : String(error)}). The request is stored with its idempotency ` +
        `key: retry it (bankrec transfer retry ${row.id}, POST /api/transfers/${row.id}/retry, or the same ` +
        'request with the same Idempotency-Key) and the bank makes at most one transfer of it.',
      { transferId: row.id, cause: error },
    )
  }
  const now = ctx.clock.now()
  return ctx.db.transaction().execute(async (trx) => {
    await closeTransferAttempt(trx, attempt.idempotencyKey, { state: 'answered' }, now)
    // The tracker observes the bank's answer on its next scan: alerts and app events come from one place. A
    // retry is a new attempt: its outcome is news even when it ends as the last one did (failed again).
    const tracking = attempt.kind === 'retry' && row.tracking ? { ...row.tracking, status: null } : undefined
    return recordBankAnswer(trx, row.id, answer, { now, nextPollAt: now, tracking })
  })
}
