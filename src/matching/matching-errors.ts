import { DomainError } from '../errors/index.js'

/**
 * A request to the matching service that cannot be done as asked; `details` say where in the request each problem
 * is (`lines.2`).
 */
export class MatchingRequestError extends DomainError {}
