import { canonicalJson } from '../canonical-json/index.js'
import { ApiError } from './api-error.js'
import type { IdempotencyRecord, SandboxState } from './state.js'

/** How long a key identifies one request (seed: at least 24 hours), on the virtual clock. */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3_600_000

export type IdempotencyOperation = 'transfers.create' | 'transfers.retry'

export type IdempotentRequest = {
  orgId: string
  operation: IdempotencyOperation
  key: string
  /** The material payload: same key and a different payload is a conflict. */
  payload: unknown
  now: Date
}

const slot = (request: IdempotentRequest) => `${request.orgId}\u0000${request.operation}\u0000${request.key}`

/**
 * The stored first response for this key, or undefined when the key is new or its window has passed. Keys are
 * scoped per organization and per operation.
 * @throws ApiError 409 idempotency_key_reused when the key was used with a materially different payload
 */
export function findReplay(
  state: Pick<SandboxState, 'idempotency'>,
  request: IdempotentRequest,
): IdempotencyRecord | undefined {
  const record = state.idempotency.get(slot(request))
  if (!record) return undefined
  if (request.now.getTime() - record.createdAt.getTime() >= IDEMPOTENCY_RETENTION_MS) {
    state.idempotency.delete(slot(request))
    return undefined
  }
  if (record.fingerprint !== canonicalJson(request.payload)) {
    throw new ApiError(
      409,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
    )
  }
  return record
}

/** Keeps the response of a request that took effect, to replay it on an identical retry. */
export function rememberResponse(
  state: Pick<SandboxState, 'idempotency'>,
  request: IdempotentRequest,
  status: number,
  body: unknown,
): void {
  state.idempotency.set(slot(request), {
    orgId: request.orgId,
    key: request.key,
    fingerprint: canonicalJson(request.payload),
    status,
    body: structuredClone(body),
    createdAt: request.now,
  })
}
