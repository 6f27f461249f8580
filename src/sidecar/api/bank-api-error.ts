import { BankApiError, ValidationError } from '../../api-client/index.js'
import { SidecarApiError } from '../api-error.js'

/**
 * The bank's refusal as this API's error: what the caller can fix (400, 404, 409, 422, 429) keeps the bank's
 * status and code; the bank refusing bankrec's own key or failing is a 502, since the caller cannot fix it.
 */
export function bankApiError(error: unknown): unknown {
  if (!(error instanceof BankApiError)) return error
  if (error instanceof ValidationError) {
    return new SidecarApiError(400, 'validation_error', error.message, error.details)
  }
  const status = error.status
  if (status === 400 || status === 404 || status === 409 || status === 422 || status === 429) {
    return new SidecarApiError(
      status,
      error.code,
      `The bank refused the request: ${error.message}`,
      error.details,
    )
  }
  if (status === 401 || status === 403) {
    return new SidecarApiError(
      502,
      'bank_rejected_api_key',
      `The bank refused bankrec's API key (${error.code}).`,
    )
  }
  return new SidecarApiError(
    502,
    'bank_unavailable',
    `The bank did not answer usably (${error.code}); retry later.`,
  )
}
