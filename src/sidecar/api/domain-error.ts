import { MatchingRequestError } from '../../reconcile/index.js'
import { MakerCheckerError, UserError } from '../../users/index.js'
import { SidecarApiError } from '../api-error.js'

/** Runs a domain request (matching, users, approvals), answering its refusals as API errors. */
export async function asApiError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof MatchingRequestError)
      throw new SidecarApiError(error.status, error.code, error.message, error.details)
    if (error instanceof UserError || error instanceof MakerCheckerError)
      throw new SidecarApiError(error.status, error.code, error.message)
    throw error
  }
}
