export type TransferErrorDetail = { path: string; message: string }

/**
 * A transfer operation that did not go through. `status` is the HTTP status the sidecar answers with; `code` is
 * stable; `transferId` names bankrec's stored record when there is one.
 */
export class TransferError extends Error {
  override readonly name = 'TransferError'

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: { transferId?: string; details?: TransferErrorDetail[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
  }

  get transferId(): string | undefined {
    return this.options.transferId
  }

  get details(): TransferErrorDetail[] | undefined {
    return this.options.details
  }
}
