export { createClosingService } from './closing-service.js'
export type { ClosingService, ClosingServiceDeps } from './closing-service.js'
export { ClosingRequestError } from './closing-errors.js'
export { matchReport, AGE_BUCKETS } from './match-report.js'
export type { MatchReport, ReportLine, AgeBucket } from './match-report.js'
export { dryRunMatching } from './dry-run.js'
export type { DryRunPayment, DryRunReport } from './dry-run.js'
export {
  DISPOSITION_KINDS,
  DispositionRequestSchema,
  presentDisposition,
  HOLDING_EXCEPTION_TYPES,
  dispose as disposeException,
} from './dispositions.js'
export type { Controls, DispositionRequest } from './dispositions.js'
export { decideDisposition, undoDisposition } from './disposition-decisions.js'
export { decideRemittance, presentRemittanceImport } from './remittance-decisions.js'
export { openRestOf } from './invoice-rest.js'
export {
  InvoiceWriteOffRequestSchema,
  INVOICE_WRITE_OFF_REASONS,
  writeOffInvoice,
} from './invoice-write-offs.js'
export type { InvoiceWriteOffRequest } from './invoice-write-offs.js'
export type { ManualMatchMode } from './person-inputs.js'
export { giveBack as giveBackTransaction } from './person-inputs.js'
export { importRemittance } from './remittance.js'
export { camt054Advice } from './camt054-advice.js'
export type { Camt054AdviceOf } from './camt054-advice.js'
export { CAMT054_LIMITS } from './camt054-limits.js'
export { looksLikeXml } from './camt054-parse.js'
export type { RemittanceAdvice, RemittanceResult } from './remittance.js'
export {
  MAX_ADVICE_LINES,
  parseRemittanceCsv,
  RemittanceFee,
  RemittanceFeeReason,
  RemittanceLine,
} from './remittance-csv.js'
export { unaccountedPayments } from './payment-accounting.js'
export type { UnaccountedPayment } from './payment-accounting.js'
