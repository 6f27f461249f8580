import type { CsvRowsRefusal } from './parse-csv-rows.js'

/** Why an import wrote nothing, in one sentence: how many rows are bad, how many are listed, where checking stopped. */
export function importRefusalMessage(result: CsvRowsRefusal): string {
  const { badRows, stoppedAtLine, rows, errors } = result
  const counted =
    stoppedAtLine === null
      ? `${badRows} ${badRows === 1 ? 'row is' : 'rows are'} invalid (of ${rows})`
      : `${badRows} rows are invalid; checking stopped there, at line ${stoppedAtLine}`
  const listed = errors.length < badRows ? `; the first ${errors.length} are listed` : ''
  return `${counted}${listed}; nothing was imported`
}
