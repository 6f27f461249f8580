import { sql, type Kysely } from 'kysely'

/** API field → mirror column of a transaction: every field the bank returns must have one. */
const TRANSACTION_COLUMNS: Record<string, string> = {
  id: 'id',
  connectionId: 'connection_id',
  accountId: 'account_id',
  postedDate: 'posted_date',
  updatedAt: 'updated_at',
  amount: 'amount',
  currency: 'currency',
  description: 'description',
  rawDescription: 'raw_description',
  customerReference: 'customer_reference',
  bankReference: 'bank_reference',
  paymentReference: 'payment_reference',
  baiCode: 'bai_code',
  category: 'category',
  subcategory: 'subcategory',
  mcc: 'mcc',
  merchantName: 'merchant_name',
  counterpartyName: 'counterparty_name',
  counterpartyAccountMasked: 'counterparty_account_masked',
  status: 'status',
  entryType: 'entry_type',
  rail: 'rail',
}

const ACCOUNT_COLUMNS: Record<string, string> = {
  id: 'id',
  connectionId: 'connection_id',
  type: 'type',
  currency: 'currency',
  name: 'name',
  status: 'status',
  officialName: 'official_name',
  maskedNumber: 'masked_number',
  paymentIdentifiers: 'payment_identifiers',
  currentBalance: 'current_balance',
  availableBalance: 'available_balance',
  balanceAsOf: 'balance_as_of',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
}

/**
 * Account fields the mirror does not keep: the seed's deprecated flat fields (always null) and the opaque
 * metadata. Named here so that any other field the bank adds makes the comparison fail.
 */
const ACCOUNT_FIELDS_NOT_MIRRORED = new Set(['accountNumber', 'routingNumber', 'swiftBic', 'metadata'])

type Row = Record<string, unknown>
export type BankTruth = { accounts: Row[]; transactions: Row[] }

/**
 * Every difference between the bank's truth (GET /_sandbox/state, API shapes) and the mirror, row for row and
 * field for field, for the given connections; an empty list means they are equal.
 */
export async function mirrorDifferences(
  db: Kysely<any>,
  truth: BankTruth,
  connectionIds: readonly string[],
  limit = 25,
): Promise<string[]> {
  const inScope = (row: Row) => connectionIds.includes(String(row.connectionId))
  const problems = [
    ...compareRows(
      'transaction',
      truth.transactions.filter(inScope),
      await readRows(db, 'transactions', connectionIds),
      TRANSACTION_COLUMNS,
      new Set(),
    ),
    ...compareRows(
      'account',
      truth.accounts.filter(inScope),
      await readRows(db, 'accounts', connectionIds),
      ACCOUNT_COLUMNS,
      ACCOUNT_FIELDS_NOT_MIRRORED,
    ),
  ]
  return problems.length > limit
    ? [...problems.slice(0, limit), `… and ${problems.length - limit} more`]
    : problems
}

async function readRows(db: Kysely<any>, table: string, connectionIds: readonly string[]): Promise<Row[]> {
  if (connectionIds.length === 0) return []
  const { rows } = await sql<Row>`select * from ${sql.table(table)} where connection_id in (${sql.join(
    connectionIds.map((id) => sql.lit(id)),
  )})`.execute(db)
  return rows
}

function compareRows(
  kind: string,
  truth: Row[],
  mirror: Row[],
  columns: Record<string, string>,
  notMirrored: ReadonlySet<string>,
): string[] {
  const problems: string[] = []
  const mirrored = new Map(mirror.map((row) => [String(row.id), row]))
  const unknownFields = new Set<string>()
  for (const expected of truth) {
    const id = String(expected.id)
    const row = mirrored.get(id)
    mirrored.delete(id)
    if (!row) {
      problems.push(`${kind} ${id} is missing from the mirror (${describe(expected)})`)
      continue
    }
    for (const [field, value] of Object.entries(expected)) {
      if (notMirrored.has(field)) continue
      const column = columns[field]
      if (!column) {
        unknownFields.add(field)
        continue
      }
      const actual = normalize(row[column])
      if (!sameValue(normalize(value), actual)) {
        problems.push(
          `${kind} ${id}: ${field} is ${JSON.stringify(actual)} in the mirror, ${JSON.stringify(value)} at the bank`,
        )
      }
    }
  }
  for (const field of unknownFields) problems.push(`${kind} field ${field} has no mirror column`)
  for (const [id, row] of mirrored)
    problems.push(`${kind} ${id} is in the mirror but not at the bank (${describe(row)})`)
  return problems
}

function normalize(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString()
  if (value === undefined) return null
  return value
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
  }
  return a === b
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Row)[k])]),
    )
  }
  return value
}

function describe(row: Row): string {
  const status = row.status ?? ''
  const amount = row.amount ?? ''
  return `connection ${String(row.connectionId ?? row.connection_id)}, ${String(status)} ${String(amount)}`.trim()
}
