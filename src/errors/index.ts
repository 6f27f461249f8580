export { DomainError } from './domain-error.js'
export type { DomainErrorDetail, DomainErrorKind } from './domain-error.js'
