import type { InvoiceFieldProblem } from './invoice-input.js'

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
] as const
export type InvoiceCsvColumn = (typeof INVOICE_CSV_COLUMNS)[number]

const REQUIRED: readonly InvoiceCsvColumn[] = ['id', 'number', 'amount', 'currency']

/** Header names compare without case, spaces, underscores or hyphens: `Customer Name`, `customer_name`. */
function headerKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '')
}

const BY_KEY = new Map<string, InvoiceCsvColumn>(
  INVOICE_CSV_COLUMNS.map((column) => [headerKey(column), column]),
)

export type ColumnLayout =
  { ok: true; columns: InvoiceCsvColumn[] } | { ok: false; problems: InvoiceFieldProblem[] }

/** Maps the header row to the invoice fields; every unknown, repeated or missing column is a problem. */
export function readHeader(header: readonly string[]): ColumnLayout {
  const problems: InvoiceFieldProblem[] = []
  const columns: InvoiceCsvColumn[] = []
  const seen = new Set<InvoiceCsvColumn>()
  for (const name of header) {
    const column = BY_KEY.get(headerKey(name))
    if (!column) {
      problems.push({
        field: name,
        message: `is not a column of an invoice file; the columns are ${INVOICE_CSV_COLUMNS.join(', ')}`,
      })
    } else if (seen.has(column)) {
      problems.push({ field: name, message: `repeats the column ${column}` })
    } else {
      seen.add(column)
      columns.push(column)
    }
  }
  for (const column of REQUIRED) {
    if (!seen.has(column)) problems.push({ field: column, message: 'column is missing from the header' })
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, columns }
}
