/** A plain decimal number: a spreadsheet reads it as a number, never as a formula, so it is written as it is. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/

/** First characters that make a spreadsheet read a cell as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * One CSV field per RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in double quotes
 * with every double quote doubled; null is the empty field. Text a payer or a bank wrote may be a formula
 * (`=HYPERLINK(…)`, `+cmd|…`, `@SUM(…)`, `-2+3`): a cell starting with `=`, `+`, `-`, `@`, tab or CR gets a
 * leading `'`, which spreadsheets show as text. Plain numbers such as `-1250.00` stay exact.
 */
export function csvField(value: string | null): string {
  if (value === null) return ''
  const cell = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell
}

/** One CSV record, ended by CRLF as RFC 4180 prescribes. */
export function csvRecord(values: readonly (string | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}
