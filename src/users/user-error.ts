/**
 * A user operation that did not go through. `status` is the HTTP status the sidecar answers with; `code` is
 * stable: `validation_error`, `name_taken`, `not_found`.
 */
export class UserError extends Error {
  override readonly name = 'UserError'

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}
