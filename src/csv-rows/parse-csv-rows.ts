import { Readable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { parse, type CsvError, type Info } from 'csv-parse'
import { lineBreakNormalizer } from './line-break-normalizer.js'
import { readHeader, type FieldProblem } from './read-header.js'

/** A row that cannot be imported: its first line in the file (the header is line 1) and every reason. */
export type CsvRowError = { line: number; id: string | null; reasons: FieldProblem[] }

export type CsvRowsRefusal = {
  ok: false
  /** The first `maxReportedRows` bad rows, in file order. */
  errors: CsvRowError[]
  /** Rows read (the header and blank rows not counted): the whole file unless checking stopped. */
  rows: number
  /** Bad rows found; at `maxBadRows` checking stops. */
  badRows: number
  /** The first line left unread once `maxBadRows` rows were bad, or null when every row was checked. */
  stoppedAtLine: number | null
}

export type CsvRowsResult<T> = { ok: true; rows: T[] } | CsvRowsRefusal

export type CsvInput = string | Uint8Array | NodeJS.ReadableStream | AsyncIterable<string | Uint8Array>

export type ParseCsvOptions = {
  /** Called as the input is read, with the bytes read so far (for a progress bar). */
  onBytes?: (bytesRead: number) => void
  /** Bad rows described in the result; the rest are counted. @defaultValue 100 */
  maxReportedRows?: number
  /** Bad rows after which the rest of the input is not read. @defaultValue 1000 */
  maxBadRows?: number
  /** Rows a file may hold; the first row past it is refused and the rest is not read. @defaultValue no limit */
  maxRows?: number
}

/** Rows validated between two turns of the event loop. */
const ROWS_PER_TURN = 50

export const MAX_REPORTED_ROWS = 100
export const MAX_BAD_ROWS = 1000

/** List cells (aliases, bank accounts) hold their items separated by `|`. */
export const LIST_SEPARATOR = '|'

/** What one kind of file holds: its columns, how cells become fields, and how a row is validated. */
export type CsvSchema<C extends string, T> = {
  /** `an invoice`, `a customer`: for the messages. */
  noun: string
  columns: readonly C[]
  required: readonly C[]
  /** Columns whose cell is a list separated by `|`. */
  lists?: readonly C[]
  /** Columns whose cell is JSON. */
  json?: readonly C[]
  validate(fields: Record<string, unknown>): { ok: true; value: T } | { ok: false; problems: FieldProblem[] }
}

const SYNTAX_MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field opened on this line or further down is never closed',
  CSV_INVALID_CLOSING_QUOTE:
    'a closing quote is followed by other characters; inside a quoted field write a quote as ""',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field; quote the whole field and write the quote as ""',
}

type ParsedRecord = { record: string[]; info: Info }

function toStream(input: CsvInput): NodeJS.ReadableStream {
  if (typeof input === 'string' || input instanceof Uint8Array) return Readable.from([Buffer.from(input)])
  if ('pipe' in input) return input
  return Readable.from(input)
}

function lineBreaks(values: readonly string[]): number {
  let count = 0
  for (const value of values) for (const char of value) if (char === '\n' || char === '\r') count++
  return count
}

function isBlank(values: readonly string[]): boolean {
  return values.every((value) => value === '')
}

/** A CSV row as the fields the schema validates; an empty cell is an absent field. */
function rowFields<C extends string, T>(
  schema: CsvSchema<C, T>,
  columns: readonly C[],
  values: readonly string[],
): { fields: { [key: string]: unknown }; problems: FieldProblem[] } {
  const fields: { [key: string]: unknown } = {}
  const problems: FieldProblem[] = []
  columns.forEach((column, index) => {
    const value = values[index] ?? ''
    if (value === '') return
    if (schema.lists?.includes(column)) {
      fields[column] = value.split(LIST_SEPARATOR).map((item) => item.trim())
    } else if (schema.json?.includes(column)) {
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
  const first: CsvRowError[] = []
  let count = 0
  return {
    get count() {
      return count
    },
    first,
    add(error: CsvRowError) {
      count++
      if (first.length === limit && first[limit - 1]!.line <= error.line) return
      const at = first.findIndex((other) => other.line > error.line)
      first.splice(at === -1 ? first.length : at, 0, error)
      if (first.length > limit) first.pop()
    },
  }
}

/**
 * Reads a CSV file (header row first; UTF-8 with or without a BOM; LF or CRLF; RFC 4180 quoting) and validates
 * every row with the schema. Either every row is valid and all are returned, or the first bad rows are returned
 * with their lines and reasons, and how many there are. Blank rows are skipped; an id may appear once. Time,
 * memory and the report stay bounded whatever the input: at `maxBadRows` bad rows reading stops (the input is
 * unpiped, left to the caller), and once a row is bad the valid ones are no longer kept (nothing will be written).
 */
export async function parseCsvRows<C extends string, T>(
  input: CsvInput,
  schema: CsvSchema<C, T>,
  options: ParseCsvOptions = {},
): Promise<CsvRowsResult<T>> {
  const maxBadRows = options.maxBadRows ?? MAX_BAD_ROWS
  const errors = badRowReport(options.maxReportedRows ?? MAX_REPORTED_ROWS)
  let stoppedAtLine: number | null = null
  const valid: T[] = []
  const firstLineOf = new Map<string, number>()
  const columnOrder = (field: string) => schema.columns.indexOf(field as C)
  let columns: C[] | undefined
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
  let sinceTurn = 0
  for await (const { record, info } of parser as AsyncIterable<ParsedRecord>) {
    // The records of a chunk already read come as microtasks: without a turn of the event loop now and then, a
    // file of thousands of rows validated in one go would hold a server's other requests (issue 26).
    if (++sinceTurn === ROWS_PER_TURN) {
      sinceTurn = 0
      await nextTurn()
    }
    const line = info.lines - lineBreaks(record)
    if (!headerSeen) {
      headerSeen = true
      const layout = readHeader(record, schema.columns, schema.required, schema.noun)
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
    if (options.maxRows !== undefined && rows > options.maxRows) {
      const message = `is past the limit: the file may hold at most ${options.maxRows} rows`
      errors.add({ line, id: null, reasons: [{ field: '', message }] })
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
    const { fields, problems } = rowFields(schema, columns, record)
    const validation = schema.validate(fields)
    const reasons = [...problems, ...(validation.ok ? [] : validation.problems)].sort(
      (a, b) => columnOrder(a.field) - columnOrder(b.field),
    )
    const id = typeof fields.id === 'string' ? fields.id : null
    if (id !== null) {
      const first = firstLineOf.get(id)
      if (first === undefined) firstLineOf.set(id, line)
      else
        reasons.push({
          field: 'id',
          message: `"${id}" is also on line ${first}; ${schema.noun} may appear once`,
        })
    }
    if (reasons.length > 0) errors.add({ line, id, reasons })
    // Nothing is written once a row is bad, so no valid row is kept from then on.
    if (errors.count > 0) valid.length = 0
    else if (validation.ok) valid.push(validation.value)
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
    : { ok: true, rows: valid }
}
