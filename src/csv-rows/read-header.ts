/** A field (or column) that failed validation and why, in words a person can act on. */
export type FieldProblem = { field: string; message: string }

/** Header names compare without case, spaces, underscores or hyphens: `Customer Name`, `customer_name`. */
function headerKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '')
}

export type ColumnLayout<C extends string> =
  { ok: true; columns: C[] } | { ok: false; problems: FieldProblem[] }

/** Maps a header row to the columns of `known`; every unknown, repeated or missing required column is a problem. */
export function readHeader<C extends string>(
  header: readonly string[],
  known: readonly C[],
  required: readonly C[],
  noun: string,
): ColumnLayout<C> {
  const byKey = new Map<string, C>(known.map((column) => [headerKey(column), column]))
  const problems: FieldProblem[] = []
  const columns: C[] = []
  const seen = new Set<C>()
  for (const name of header) {
    const column = byKey.get(headerKey(name))
    if (!column) {
      problems.push({
        field: name,
        message: `is not a column of ${noun} file; the columns are ${known.join(', ')}`,
      })
    } else if (seen.has(column)) {
      problems.push({ field: name, message: `repeats the column ${column}` })
    } else {
      seen.add(column)
      columns.push(column)
    }
  }
  for (const column of required) {
    if (!seen.has(column)) problems.push({ field: column, message: 'column is missing from the header' })
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, columns }
}
