import type { CsvSchema } from '../csv-rows/index.js'
import { validateInvoice, type InvoiceInput } from './invoice-input.js'

/** The CSV columns, in the order bankrec writes them. Only id, number, amount and currency are required. */
export const INVOICE_CSV_COLUMNS = [
  'id',
  'number',
  'amount',
  'currency',
  'customerName',
  'customerAliases',
  'issueDate',
  'dueDate',
  'entityId',
  'accountId',
  'metadata',
  'customerId',
  'paymentReference',
  'discountPercent',
  'discountUntil',
] as const
export type InvoiceCsvColumn = (typeof INVOICE_CSV_COLUMNS)[number]

/** An invoice file: aliases separated by `|`, metadata as JSON. */
export const INVOICE_CSV_SCHEMA: CsvSchema<InvoiceCsvColumn, InvoiceInput> = {
  noun: 'an invoice',
  columns: INVOICE_CSV_COLUMNS,
  required: ['id', 'number', 'amount', 'currency'],
  lists: ['customerAliases'],
  json: ['metadata'],
  validate({ discountPercent, discountUntil, ...fields }) {
    // Discount terms are two cells; either given makes the object, so a missing half is reported by name.
    const terms =
      discountPercent === undefined && discountUntil === undefined
        ? {}
        : { earlyPaymentDiscount: { percent: discountPercent, until: discountUntil } }
    const result = validateInvoice({ ...fields, ...terms })
    return result.ok ? { ok: true, value: result.invoice } : result
  },
}
