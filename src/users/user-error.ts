import { DomainError } from '../errors/index.js'

/** A user operation that did not go through; `code` is stable: `validation_error`, `name_taken`, `not_found`. */
export class UserError extends DomainError {}
