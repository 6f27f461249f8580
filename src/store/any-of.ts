import { sql, type RawBuilder } from 'kysely'

/**
 * The right side of `= any(…)`: a list as one array parameter, where `in (…)` would bind one parameter per item
 * and fail past PostgreSQL's 65,535 bind parameters (issue 26: a remittance CSV of 65,536 lines answered 500).
 * `where('id', '=', anyOf(ids))`; PostgreSQL types the array from the left side. An empty list matches nothing.
 */
export function anyOf<T>(values: readonly T[]): RawBuilder<T> {
  return sql<T>`any(${[...values]})`
}

/** The right side of `<> all(…)`, `not in` as one array parameter: an empty list excludes nothing. */
export function allOf<T>(values: readonly T[]): RawBuilder<T> {
  return sql<T>`all(${[...values]})`
}
