/**
 * What kind of refusal a domain error is, in the domain's words. The HTTP layer turns a kind into a status in one
 * place (`sidecar/api-error.ts`); the CLI turns `invalid` into its usage exit code.
 */
export type DomainErrorKind =
  | 'invalid' // the request itself is malformed or names impossible values
  | 'forbidden' // the actor may not do this (role, maker-checker)
  | 'not_found'
  | 'conflict' // the request is well formed but the current state refuses it
  | 'unprocessable' // well formed and allowed, but the facts do not add up (a split that does not balance)
  | 'unavailable' // the bank did not answer usably; retrying later may succeed

export type DomainErrorDetail = { path: string; message: string }

/**
 * The base of every refusal a domain module throws: a stable `code`, a message that says what to do next, and,
 * for input problems, `details` naming each field at fault.
 */
export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly details?: DomainErrorDetail[],
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = new.target.name
  }
}
