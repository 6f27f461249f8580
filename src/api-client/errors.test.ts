import { describe, expect, it } from 'vitest'
import {
  BankApiError,
  BankAuthenticationError,
  BankConflictError,
  BankCursorExpiredError,
  BankInvalidCursorError,
  BankNotFoundError,
  BankPermissionError,
  BankRateLimitError,
  BankServerError,
  BankValidationError,
  errorFromResponse,
} from './errors.js'

const body = (code: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message: `message for ${code}`, requestId: 'req_body', ...extra },
})

describe('errorFromResponse', () => {
  it.each([
    [401, 'invalid_api_key', BankAuthenticationError],
    [401, 'api_key_expired', BankAuthenticationError],
    [403, 'insufficient_scope', BankPermissionError],
    [404, 'not_found', BankNotFoundError],
    [400, 'validation_error', BankValidationError],
    [400, 'invalid_cursor', BankInvalidCursorError],
    [410, 'cursor_expired', BankCursorExpiredError],
    [409, 'sync_in_progress', BankConflictError],
    [429, 'sync_cooldown', BankRateLimitError],
    [503, 'service_unavailable', BankServerError],
  ])('maps HTTP %i %s to its class', (status, code, ErrorClass) => {
    const error = errorFromResponse(status, body(code), new Headers())
    expect(error).toBeInstanceOf(ErrorClass)
    expect(error).toMatchObject({ status, code, message: `message for ${code}`, requestId: 'req_body' })
  })

  it('maps by code before status', () => {
    expect(errorFromResponse(400, body('cursor_expired'), new Headers())).toBeInstanceOf(
      BankCursorExpiredError,
    )
  })

  it('maps an unknown code by its status', () => {
    expect(errorFromResponse(409, body('webhook_inactive'), new Headers())).toBeInstanceOf(BankConflictError)
    expect(errorFromResponse(422, body('something_new'), new Headers())).toBeInstanceOf(BankValidationError)
  })

  it('falls back to the base class for an unknown code and status', () => {
    const error = errorFromResponse(418, body('teapot'), new Headers())
    expect(error.constructor).toBe(BankApiError)
    expect(error.code).toBe('teapot')
  })

  it.each([
    ['sync_in_progress', 'sync_in_progress'],
    ['connection_in_setup', 'connection_in_setup'],
    ['idempotency_key_reused', 'idempotency_key_reused'],
    ['delete_conflict', 'delete_conflict'],
    ['webhook_inactive', 'unknown'],
  ])('gives a 409 %s the conflict reason %s', (code, reason) => {
    expect((errorFromResponse(409, body(code), new Headers()) as BankConflictError).reason).toBe(reason)
  })

  it('reads the request id from the Request-Id header when the body has none', () => {
    const error = errorFromResponse(
      502,
      '<html>Bad gateway</html>',
      new Headers({ 'request-id': 'req_header' }),
    )
    expect(error).toBeInstanceOf(BankServerError)
    expect(error).toMatchObject({ code: 'http_502', requestId: 'req_header' })
  })

  it('carries Retry-After as retryAfterMs', () => {
    const error = errorFromResponse(429, body('rate_limited'), new Headers({ 'retry-after': '2' }))
    expect(error.retryAfterMs).toBe(2000)
  })

  it('keeps the field details of a validation error', () => {
    const details = [{ path: 'body.clientReference', message: 'too long' }]
    expect(errorFromResponse(400, body('validation_error', { details }), new Headers()).details).toEqual(
      details,
    )
  })
})
