import { ErrorBody, ErrorCodes } from './common.js'
import { parseRetryAfter } from './retry-policy.js'

export type BankErrorDetail = { path: string; message: string }

export type BankApiErrorInit = {
  message: string
  code: string
  status?: number | undefined
  requestId?: string | undefined
  details?: BankErrorDetail[] | undefined
  retryAfterMs?: number | undefined
  cause?: unknown
}

/**
 * Base of every error the client throws. `code` is stable (the service's error code, or the client's own for
 * failures without an answer); an error code the client does not know falls back to this class.
 */
export class BankApiError extends Error {
  override readonly name: string = 'BankApiError'
  readonly code: string
  /** HTTP status, when the service answered. */
  readonly status: number | undefined
  /** The service's request id (error body or Request-Id header): quote it to support. */
  readonly requestId: string | undefined
  readonly details: BankErrorDetail[] | undefined
  /** How long the service asked the caller to wait (Retry-After), when it said. */
  readonly retryAfterMs: number | undefined

  constructor(init: BankApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.details = init.details
    this.retryAfterMs = init.retryAfterMs
  }
}

/** 401: the API key is missing, unknown or expired. */
export class BankAuthenticationError extends BankApiError {
  override readonly name = 'BankAuthenticationError'
}

/** 403: the API key lacks the scope the endpoint needs. */
export class BankPermissionError extends BankApiError {
  override readonly name = 'BankPermissionError'
}

/** 404: no such resource visible to this key. */
export class BankNotFoundError extends BankApiError {
  override readonly name = 'BankNotFoundError'
}

/** The seed's 409 cases; `unknown` for a conflict code this client does not know. */
export type ConflictReason =
  'sync_in_progress' | 'connection_in_setup' | 'idempotency_key_reused' | 'delete_conflict' | 'unknown'

const CONFLICT_REASONS: ReadonlySet<string> = new Set([
  ErrorCodes.syncInProgress,
  ErrorCodes.connectionInSetup,
  ErrorCodes.idempotencyKeyReused,
  ErrorCodes.deleteConflict,
])

/** 409: the request conflicts with the resource's current state; `reason` says which seed rule. */
export class BankConflictError extends BankApiError {
  override readonly name = 'BankConflictError'
  readonly reason: ConflictReason

  constructor(init: BankApiErrorInit) {
    super(init)
    this.reason = CONFLICT_REASONS.has(init.code) ? (init.code as ConflictReason) : 'unknown'
  }
}

/** 429: too many requests, or the 45-minute connection sync cooldown (code sync_cooldown); see retryAfterMs. */
export class BankRateLimitError extends BankApiError {
  override readonly name = 'BankRateLimitError'
}

/** A sync or list cursor that is malformed or belongs to other filters: restart from a fresh cursor. */
export class BankInvalidCursorError extends BankApiError {
  override readonly name = 'BankInvalidCursorError'
}

/** A sync cursor older than 90 days: rebootstrap the stream from scratch. */
export class BankCursorExpiredError extends BankApiError {
  override readonly name = 'BankCursorExpiredError'
}

/** 400/422 from the service: the request was rejected; `details` names each field. */
export class BankValidationError extends BankApiError {
  override readonly name = 'BankValidationError'
}

/** 5xx: the service failed; safe requests were already retried. */
export class BankServerError extends BankApiError {
  override readonly name = 'BankServerError'
}

/** No answer at all (connection refused, reset or dropped). The request may or may not have taken effect. */
export class BankConnectionError extends BankApiError {
  override readonly name: string = 'BankConnectionError'
}

/** No answer within timeoutMs. The request may or may not have taken effect. */
export class BankTimeoutError extends BankConnectionError {
  override readonly name = 'BankTimeoutError'
}

/** Input rejected by the client before sending: no request was made. */
export class ValidationError extends BankApiError {
  override readonly name = 'ValidationError'
  /** The first offending field, dotted (e.g. `amount.value`). */
  readonly field: string

  constructor(field: string, message: string, details: BankErrorDetail[] = [{ path: field, message }]) {
    super({ code: 'invalid_request_params', message: `Invalid ${field}: ${message}`, details })
    this.field = field
  }
}

/** A successful answer whose body does not match the contract; `path` is where it broke. */
export class ResponseValidationError extends BankApiError {
  override readonly name = 'ResponseValidationError'
  readonly path: string

  constructor(init: Omit<BankApiErrorInit, 'code'> & { path: string }) {
    super({ ...init, code: 'invalid_response' })
    this.path = init.path
  }
}

type ErrorClass = new (init: BankApiErrorInit) => BankApiError

const BY_CODE: Record<string, ErrorClass> = {
  [ErrorCodes.authenticationRequired]: BankAuthenticationError,
  [ErrorCodes.invalidApiKey]: BankAuthenticationError,
  [ErrorCodes.apiKeyExpired]: BankAuthenticationError,
  [ErrorCodes.insufficientScope]: BankPermissionError,
  [ErrorCodes.notFound]: BankNotFoundError,
  [ErrorCodes.validation]: BankValidationError,
  [ErrorCodes.invalidCursor]: BankInvalidCursorError,
  [ErrorCodes.cursorExpired]: BankCursorExpiredError,
  [ErrorCodes.syncInProgress]: BankConflictError,
  [ErrorCodes.connectionInSetup]: BankConflictError,
  [ErrorCodes.idempotencyKeyReused]: BankConflictError,
  [ErrorCodes.deleteConflict]: BankConflictError,
  [ErrorCodes.syncCooldown]: BankRateLimitError,
  [ErrorCodes.rateLimited]: BankRateLimitError,
  [ErrorCodes.internal]: BankServerError,
  [ErrorCodes.unavailable]: BankServerError,
}

function classForStatus(status: number): ErrorClass {
  if (status === 401) return BankAuthenticationError
  if (status === 403) return BankPermissionError
  if (status === 404) return BankNotFoundError
  if (status === 409) return BankConflictError
  if (status === 429) return BankRateLimitError
  if (status === 400 || status === 422) return BankValidationError
  if (status >= 500) return BankServerError
  return BankApiError
}

/**
 * Maps a failed answer to its error class: by error code first, by HTTP status second, anything else to the
 * base class. `body` is the parsed JSON body (or anything else the server sent).
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  nowMs: number = Date.now(),
): BankApiError {
  const parsed = ErrorBody.safeParse(body)
  const error = parsed.success ? parsed.data.error : undefined
  const code = error?.code ?? `http_${status}`
  const ErrorClass = BY_CODE[code] ?? classForStatus(status)
  return new ErrorClass({
    message: error?.message ?? `The service answered HTTP ${status} without an error body.`,
    code,
    status,
    requestId: error?.requestId ?? headers.get('request-id') ?? undefined,
    details: error?.details?.map(({ path, message }) => ({ path, message })),
    retryAfterMs: parseRetryAfter(headers.get('retry-after'), nowMs),
  })
}
