import type { Rail, TransactionSort, TransactionStatus } from '../api-client/index.js'
import type { TransactionRecord } from './state.js'

export type TransactionFilter = {
  orgId: string
  accountId?: string
  connectionId?: string
  status?: TransactionStatus
  rail?: Rail
  /** Inclusive. */
  postedDateGte?: string
  /** Exclusive. */
  postedDateLt?: string
}

function matches(record: TransactionRecord, filter: TransactionFilter): boolean {
  const date = record.postedDate ?? null
  return (
    record.orgId === filter.orgId &&
    (filter.accountId === undefined || record.accountId === filter.accountId) &&
    (filter.connectionId === undefined || record.connectionId === filter.connectionId) &&
    (filter.status === undefined || record.status === filter.status) &&
    (filter.rail === undefined || record.rail === filter.rail) &&
    (filter.postedDateGte === undefined || (date !== null && date >= filter.postedDateGte)) &&
    (filter.postedDateLt === undefined || (date !== null && date < filter.postedDateLt))
  )
}

function sortKey(record: TransactionRecord, sort: TransactionSort): number | null {
  if (sort === 'postedDate' || sort === '-postedDate') {
    return record.postedDate ? Date.parse(`${record.postedDate}T00:00:00Z`) : null
  }
  return record.updatedAt ? Date.parse(record.updatedAt) : null
}

/**
 * Orders by the sort field (`-` for descending), then by id ascending whatever the direction, so the order is
 * total and pages never overlap. A transaction without the sort field comes last in both directions.
 */
export function compareTransactions(sort: TransactionSort) {
  const direction = sort.startsWith('-') ? -1 : 1
  return (a: TransactionRecord, b: TransactionRecord): number => {
    const ka = sortKey(a, sort)
    const kb = sortKey(b, sort)
    if (ka !== kb) {
      if (ka === null) return 1
      if (kb === null) return -1
      return (ka - kb) * direction
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  }
}

/** The transactions a list request selects, in its order (seed: list query parameters). */
export function queryTransactions(
  records: Iterable<TransactionRecord>,
  filter: TransactionFilter,
  sort: TransactionSort,
): TransactionRecord[] {
  return [...records].filter((record) => matches(record, filter)).sort(compareTransactions(sort))
}
