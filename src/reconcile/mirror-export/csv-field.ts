/**
 * One CSV field per RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in double quotes
 * with every double quote doubled; null is the empty field. Values are written exactly as stored (no
 * spreadsheet-formula escaping: an export for audits must not alter a description or a negative amount).
 */
export function csvField(value: string | null): string {
  if (value === null) return ''
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

/** One CSV record, ended by CRLF as RFC 4180 prescribes. */
export function csvRecord(values: readonly (string | null)[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}
