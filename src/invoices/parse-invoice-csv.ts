import { Readable } from 'node:stream'
import { parse, type CsvError, type Info } from 'csv-parse'
import { INVOICE_CSV_COLUMNS, readHeader, type InvoiceCsvColumn } from './invoice-csv-columns.js'
import { validateInvoice, type InvoiceFieldProblem, type InvoiceInput } from './invoice-input.js'
import { lineBreakNormalizer } from './line-break-normalizer.js'

/** A row that cannot be imported: its first line in the file (the header is line 1) and every reason. */
export type InvoiceCsvRowError = { line: number; id: string | null; reasons: InvoiceFieldProblem[] }

export type InvoiceCsvResult =
  | { ok: true; invoices: InvoiceInput[] }
  | {
      ok: false
      /** The first `maxReportedRows` bad rows, in file order. */
      errors: InvoiceCsvRowError[]
      /** Rows read (the header and blank rows not counted): the whole file unless checking stopped. */
      rows: number
      /** Bad rows found; at `maxBadRows` checking stops. */
      badRows: number
      /** The first line left unread once `maxBadRows` rows were bad, or null when every row was checked. */
      stoppedAtLine: number | null
    }

export type InvoiceCsvInput = string | Uint8Array | NodeJS.ReadableStream | AsyncIterable<string | Uint8Array>

export type ParseInvoiceCsvOptions = {
  /** Called as the input is read, with the bytes read so far (for a progress bar). */
  onBytes?: (bytesRead: number) => void
  /** Bad rows described in the result; the rest are counted. @defaultValue 100 */
  maxReportedRows?: number
  /** Bad rows after which the rest of the input is not read. @defaultValue 1000 */
  maxBadRows?: number
}

export const MAX_REPORTED_ROWS = 100
export const MAX_BAD_ROWS = 1000

/** Aliases are one cell: names separated by `|`. */
export const ALIAS_SEPARATOR = '|'

const SYNTAX_MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field opened on this line or further down is never closed',
  CSV_INVALID_CLOSING_QUOTE:
    'a closing quote is followed by other characters; inside a quoted field write a quote as ""',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field; quote the whole field and write the quote as ""',
}

type ParsedRecord = { record: string[]; info: Info }

function toStream(input: InvoiceCsvInput): NodeJS.ReadableStream {
  if (typeof input === 'string' || input instanceof Uint8Array) return Readable.from([Buffer.from(input)])
  if ('pipe' in input) return input
  return Readable.from(input)
}

function lineBreaks(values: readonly string[]): number {
  let count = 0
  for (const value of values) for (const char of value) if (char === '\n' || char === '\r') count++
  return count
}

function columnOrder(field: string): number {
  return INVOICE_CSV_COLUMNS.indexOf(field as InvoiceCsvColumn)
}

function isBlank(values: readonly string[]): boolean {
  return values.every((value) => value === '')
}

/** A CSV row as the fields validateInvoice reads; an empty cell is an absent field. */
function rowFields(
  columns: readonly InvoiceCsvColumn[],
  values: readonly string[],
): { fields: { [key: string]: unknown }; problems: InvoiceFieldProblem[] } {
  const fields: { [key: string]: unknown } = {}
  const problems: InvoiceFieldProblem[] = []
  columns.forEach((column, index) => {
    const value = values[index] ?? ''
    if (value === '') return
    if (column === 'customerAliases') {
      fields[column] = value.split(ALIAS_SEPARATOR).map((alias) => alias.trim())
    } else if (column === 'metadata') {
      try {
        fields[column] = JSON.parse(value)
      } catch {
        problems.push({ field: column, message: 'is not valid JSON; write an object such as {"po":"4711"}' })
      }
    } else {
      fields[column] = value
    }
  })
  return { fields, problems }
}

/**
 * The first `limit` bad rows by line, and how many there were. Syntax errors arrive while the parser runs ahead
 * of the validation loop, so an error may come after one of a later line.
 */
function badRowReport(limit: number) {
  const first: InvoiceCsvRowError[] = []
  let count = 0
  return {
    get count() {
      return count
    },
    first,
    add(error: InvoiceCsvRowError) {
      count++
      if (first.length === limit && first[limit - 1]!.line <= error.line) return
      const at = first.findIndex((other) => other.line > error.line)
      first.splice(at === -1 ? first.length : at, 0, error)
      if (first.length > limit) first.pop()
    },
  }
}

/**
 * Reads an invoice CSV (header row first; UTF-8 with or without a BOM; LF or CRLF; RFC 4180 quoting) and
 * validates every row. Either every row is valid and all are returned, or the first bad rows are returned with
 * their lines and reasons, and how many there are. Blank rows are skipped. Time, memory and the report stay
 * bounded whatever the input: at `maxBadRows` bad rows reading stops (the input is unpiped, left to the caller),
 * and once a row is bad the valid ones are no longer kept (nothing will be written).
 */
export async function parseInvoiceCsv(
  input: InvoiceCsvInput,
  options: ParseInvoiceCsvOptions = {},
): Promise<InvoiceCsvResult> {
  const maxBadRows = options.maxBadRows ?? MAX_BAD_ROWS
  const errors = badRowReport(options.maxReportedRows ?? MAX_REPORTED_ROWS)
  let stoppedAtLine: number | null = null
  const invoices: InvoiceInput[] = []
  const firstLineOf = new Map<string, number>()
  let columns: InvoiceCsvColumn[] | undefined
  let headerSeen = false
  let rows = 0
  let lastRecordEnd = 0
  const parser = parse({
    bom: true,
    info: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    on_record: (record: string[], info: Info) => {
      lastRecordEnd = info.lines
      return record
    },
    on_skip: (error: CsvError | undefined) => {
      if (!error) return
      rows++
      errors.add({
        // csv-parse only notices an unclosed quote at the end of the input; it opened after the last record.
        line: error.code === 'CSV_QUOTE_NOT_CLOSED' ? lastRecordEnd + 1 : Number(error.lines),
        id: null,
        reasons: [{ field: '', message: SYNTAX_MESSAGES[error.code] ?? error.message }],
      })
    },
  })
  const source = toStream(input)
  source.on('error', (error) => parser.destroy(error))
  source.pipe(lineBreakNormalizer(options.onBytes)).pipe(parser)
  for await (const { record, info } of parser as AsyncIterable<ParsedRecord>) {
    const line = info.lines - lineBreaks(record)
    if (!headerSeen) {
      headerSeen = true
      const layout = readHeader(record)
      if (!layout.ok) {
        errors.add({ line, id: null, reasons: layout.problems })
        continue
      }
      columns = layout.columns
      continue
    }
    if (isBlank(record)) continue
    rows++
    if (!columns) continue
    if (errors.count >= maxBadRows) {
      stoppedAtLine = line
      rows--
      break
    }
    if (record.length !== columns.length) {
      errors.add({
        line,
        id: null,
        reasons: [{ field: '', message: `has ${record.length} fields; the header has ${columns.length}` }],
      })
      continue
    }
    const { fields, problems } = rowFields(columns, record)
    const validation = validateInvoice(fields)
    const reasons = [...problems, ...(validation.ok ? [] : validation.problems)].sort(
      (a, b) => columnOrder(a.field) - columnOrder(b.field),
    )
    const id = typeof fields.id === 'string' ? fields.id : null
    if (id !== null) {
      const first = firstLineOf.get(id)
      if (first === undefined) firstLineOf.set(id, line)
      else
        reasons.push({ field: 'id', message: `"${id}" is also on line ${first}; an invoice may appear once` })
    }
    if (reasons.length > 0) errors.add({ line, id, reasons })
    // Nothing is written once a row is bad, so no valid row is kept from then on.
    if (errors.count > 0) invoices.length = 0
    else if (validation.ok) invoices.push(validation.invoice)
  }
  // The rest is not read: a caller streaming a request may drain or drop it (the parser is gone).
  if (stoppedAtLine !== null) source.unpipe()
  if (!headerSeen) {
    errors.add({
      line: 1,
      id: null,
      reasons: [{ field: '', message: 'the file is empty; its first line must name the columns' }],
    })
  }
  return errors.count > 0
    ? { ok: false, errors: errors.first, rows, badRows: errors.count, stoppedAtLine }
    : { ok: true, invoices }
}
