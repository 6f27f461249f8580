import type { CsvRowError } from '../csv-rows/index.js'

/** One refused CSV row as the import commands print it: `line N (id X): field reason; …`. */
export function csvRowLine(row: CsvRowError): string {
  const reasons = row.reasons.map((reason) =>
    reason.field ? `${reason.field} ${reason.message}` : reason.message,
  )
  return `line ${row.line}${row.id ? ` (id ${row.id})` : ''}: ${reasons.join('; ')}\n`
}
