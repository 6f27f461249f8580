import { randomUUID } from 'node:crypto'
import { IdempotencyKey, TransferCreateParams } from '../api-client/index.js'
import { listTransferAttempts, storeTransferRequest } from '../store/index.js'
import { presentTransfer, type TransferRecord } from './present-transfer.js'
import { requestFingerprint } from './request-fingerprint.js'
import { sendTransferAttempt } from './send-transfer-attempt.js'
import type { TransferContext } from './transfer-context.js'
import { TransferError } from './transfer-error.js'

export type CreateTransferOptions = {
  /**
   * The caller's key for this request. Repeating a call with the same key and body returns the same record (and
   * resumes it if the bank never answered) instead of creating a second transfer. @defaultValue a new UUID
   */
  idempotencyKey?: string
}

export type CreateTransferResult = {
  transfer: TransferRecord
  /** True when the key was already stored: the existing record was returned. */
  replayed: boolean
}

function invalid(where: string, issues: { path: PropertyKey[]; message: string }[]): TransferError {
  const details = issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }))
  return new TransferError(
    'invalid',
    'validation_error',
    details.map((d) => `${d.path} ${d.message}`).join('; '),
    {
      details,
    },
  )
}

/**
 * Creates an internal transfer at the bank. The request and its idempotency key are committed before the bank
 * is called, so whatever happens next (a crash, a timeout, a lost answer) a retry resends the same request with
 * the same key and the bank makes one transfer of it.
 * @throws TransferError validation_error (400), idempotency_key_reused (409), the bank's refusal, or
 *   bank_unavailable (502, the request stays stored and can be retried)
 */
export async function createTransfer(
  ctx: TransferContext,
  params: TransferCreateParams,
  options: CreateTransferOptions = {},
): Promise<CreateTransferResult> {
  const body = TransferCreateParams.safeParse(params)
  if (!body.success) throw invalid('body', body.error.issues)
  const key = IdempotencyKey.safeParse(options.idempotencyKey ?? (ctx.generateId ?? randomUUID)())
  if (!key.success) throw invalid('idempotencyKey', key.error.issues)
  const request = JSON.parse(JSON.stringify(body.data)) as Record<string, unknown>
  const fingerprint = requestFingerprint(request)
  const now = ctx.clock.now()
  const { row, created } = await storeTransferRequest(ctx.db, {
    id: (ctx.generateId ?? randomUUID)(),
    idempotencyKey: key.data,
    request,
    fingerprint,
    clientReference: body.data.clientReference,
    amount: body.data.amount.value,
    currency: body.data.amount.currency,
    sourceAccountId: body.data.sourceAccountId,
    destinationAccountId: body.data.destination.accountId,
    now,
  })
  if (!created && row.request_fingerprint !== fingerprint) {
    throw new TransferError(
      'conflict',
      'idempotency_key_reused',
      `The Idempotency-Key was already used for transfer ${row.id} with a different request; use a new key for a new transfer.`,
      { transferId: row.id },
    )
  }
  let current = row
  if (current.status === 'submitting') {
    // New, or stored by an earlier call that never got the bank's answer: send it (again) with its own key.
    current = await sendTransferAttempt(ctx, current, {
      kind: 'create',
      idempotencyKey: current.idempotency_key,
      createdAt: current.created_at,
    })
  }
  return {
    transfer: presentTransfer(current, await listTransferAttempts(ctx.db, current.id)),
    replayed: !created,
  }
}
