import {
  LIST_SEPARATOR,
  parseCsvRows,
  type CsvInput,
  type CsvRowError,
  type CsvRowsRefusal,
  type ParseCsvOptions,
} from '../csv-rows/index.js'
import { INVOICE_CSV_SCHEMA } from './invoice-csv-columns.js'
import type { InvoiceInput } from './invoice-input.js'

/** A row that cannot be imported: its first line in the file (the header is line 1) and every reason. */
export type InvoiceCsvRowError = CsvRowError

export type InvoiceCsvResult = { ok: true; invoices: InvoiceInput[] } | CsvRowsRefusal

export type InvoiceCsvInput = CsvInput

export type ParseInvoiceCsvOptions = ParseCsvOptions

/** Aliases are one cell: names separated by `|`. */
export const ALIAS_SEPARATOR = LIST_SEPARATOR

/**
 * Reads an invoice CSV (header row first; UTF-8 with or without a BOM; LF or CRLF; RFC 4180 quoting) and
 * validates every row (parseCsvRows: bounded, the first bad rows reported and all counted).
 */
export async function parseInvoiceCsv(
  input: InvoiceCsvInput,
  options: ParseInvoiceCsvOptions = {},
): Promise<InvoiceCsvResult> {
  const parsed = await parseCsvRows(input, INVOICE_CSV_SCHEMA, options)
  return parsed.ok ? { ok: true, invoices: parsed.rows } : parsed
}
