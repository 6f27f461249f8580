import { DomainError, type DomainErrorDetail, type DomainErrorKind } from '../errors/index.js'

export type TransferErrorDetail = DomainErrorDetail

/** A transfer operation that did not go through; `code` is stable; `transferId` names bankrec's stored record. */
export class TransferError extends DomainError {
  readonly transferId: string | undefined

  constructor(
    kind: DomainErrorKind,
    code: string,
    message: string,
    options: { transferId?: string; details?: TransferErrorDetail[]; cause?: unknown } = {},
  ) {
    super(
      kind,
      code,
      message,
      options.details,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.transferId = options.transferId
  }
}
