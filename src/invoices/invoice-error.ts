export type InvoiceErrorDetail = { path: string; message: string }

/**
 * An invoice operation that did not go through. `status` is the HTTP status the sidecar answers with; `code` is
 * stable (validation_error, invalid_cursor, not_found); every detail names the field at fault.
 */
export class InvoiceError extends Error {
  override readonly name: string = 'InvoiceError'

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: InvoiceErrorDetail[],
  ) {
    super(message)
  }
}
