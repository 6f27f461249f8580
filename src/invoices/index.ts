export {
  createInvoices,
  invoiceChangeHooks,
  INVOICE_STATUSES,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  InvoiceListQuery,
} from './create-invoices.js'
export type {
  Invoices,
  InvoicesContext,
  InvoiceChangeListener,
  InvoiceUpsertResult,
  InvoiceImportResult,
  InvoiceImportOptions,
  InvoiceList,
  InvoiceListParams,
} from './create-invoices.js'
export { invoiceView } from './invoice-view.js'
export type { Invoice } from './invoice-view.js'
export {
  validateInvoice,
  INVOICE_ID_PATTERN,
  CURRENCY_PATTERN,
  READ_ONLY_FIELDS,
  InvoiceInputSchema,
} from './invoice-input.js'
export type { InvoiceInput, InvoiceFieldProblem, InvoiceValidation } from './invoice-input.js'
export { parseInvoiceCsv, ALIAS_SEPARATOR } from './parse-invoice-csv.js'
export type {
  InvoiceCsvInput,
  InvoiceCsvResult,
  InvoiceCsvRowError,
  ParseInvoiceCsvOptions,
} from './parse-invoice-csv.js'
export { INVOICE_CSV_COLUMNS } from './invoice-csv-columns.js'
export type { InvoiceCsvColumn } from './invoice-csv-columns.js'
export { InvoiceError } from './invoice-error.js'
export type { InvoiceErrorDetail } from './invoice-error.js'
export { INVOICE_KEYS_VERSION, customerKeys, invoiceKeys, withKeys } from './invoice-keys.js'
export { rekeyInvoices } from './rekey-invoices.js'
