import { DomainError, type DomainErrorDetail } from '../errors/index.js'

export type InvoiceErrorDetail = DomainErrorDetail

/**
 * An invoice operation that did not go through; `code` is stable (validation_error, invalid_cursor, not_found);
 * every detail names the field at fault.
 */
export class InvoiceError extends DomainError {}
