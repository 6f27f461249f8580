import { DomainError } from '../errors/index.js'

/**
 * A person's closing request (a match, a disposition, a remittance advice) that cannot be done as asked; `details`
 * say where in the request each problem is (`lines.2`).
 */
export class ClosingRequestError extends DomainError {}
