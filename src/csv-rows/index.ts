export { parseCsvRows, LIST_SEPARATOR, MAX_BAD_ROWS, MAX_REPORTED_ROWS } from './parse-csv-rows.js'
export type {
  CsvInput,
  CsvRowError,
  CsvRowsRefusal,
  CsvRowsResult,
  CsvSchema,
  ParseCsvOptions,
} from './parse-csv-rows.js'
export { importRefusalMessage } from './import-refusal.js'
export { readHeader } from './read-header.js'
export type { ColumnLayout, FieldProblem } from './read-header.js'
export { lineBreakNormalizer } from './line-break-normalizer.js'
