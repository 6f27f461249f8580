import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely'
import type { Database, TransactionsTable } from './database.js'
import { anyOf } from './any-of.js'
import { arrayLiteral } from './array-literal.js'

export type TransactionRow = Insertable<TransactionsTable>

/** Every written column with its SQL type: a batch travels as one array per column (see upsertTransactions). */
const COLUMNS = [
  ['id', 'uuid'],
  ['connection_id', 'text'],
  ['account_id', 'uuid'],
  ['posted_date', 'date'],
  ['updated_at', 'timestamptz'],
  ['amount', 'numeric'],
  ['currency', 'text'],
  ['description', 'text'],
  ['raw_description', 'text'],
  ['customer_reference', 'text'],
  ['bank_reference', 'text'],
  ['payment_reference', 'text'],
  ['bai_code', 'text'],
  ['category', 'text'],
  ['subcategory', 'text'],
  ['mcc', 'text'],
  ['merchant_name', 'text'],
  ['counterparty_name', 'text'],
  ['counterparty_account_masked', 'text'],
  ['status', 'text'],
  ['entry_type', 'text'],
  ['rail', 'text'],
  ['last_event_id', 'text'],
  ['backfill_run', 'text'],
] as const satisfies ReadonlyArray<readonly [keyof TransactionRow, string]>

const COLUMN_LIST = sql.raw(COLUMNS.map(([column]) => column).join(', '))
const UPDATE_LIST = sql.raw(
  [
    ...COLUMNS.filter(([column]) => column !== 'id').map(([column]) => `${column} = excluded.${column}`),
    'mirrored_at = now()',
  ].join(', '),
)

/**
 * A batch of rows encoded for the upsert: one array literal per column (arrayLiteral), read by PostgreSQL as what
 * node-postgres sends for a JS array, so a caller can pay for the encoding before the write (the sync encodes a
 * page on arrival, while the page before it is being written) rather than on the write's path.
 */
export class EncodedTransactionRows {
  readonly ids: readonly string[]
  /** The earliest posted date of the batch, null if none has one. */
  readonly earliestPostedDate: string | null
  readonly columns: readonly string[]
  constructor(rows: readonly TransactionRow[]) {
    this.ids = rows.map((row) => row.id)
    this.columns = COLUMNS.map(([column]) =>
      arrayLiteral(column === 'id' ? this.ids : rows.map((row) => row[column] ?? null)),
    )
    let earliest: string | null = null
    for (const row of rows)
      if (row.posted_date && (earliest === null || row.posted_date < earliest)) earliest = row.posted_date
    this.earliestPostedDate = earliest
  }
}

/** `rows` encoded for the upsert (already encoded ones as they are). */
export function encodeTransactionRows(
  rows: readonly TransactionRow[] | EncodedTransactionRows,
): EncodedTransactionRows {
  return rows instanceof EncodedTransactionRows ? rows : new EncodedTransactionRows(rows)
}

/**
 * The upsert of `rows` keyed by transaction id, as a statement to execute or embed in a larger one; with
 * `guard`, only when that boolean SQL expression holds. The batch goes as one typed array per column through
 * unnest(): 24 parameters whatever its size instead of 24 per row, which PostgreSQL takes markedly faster
 * (bench/sync.ts). Amounts stay decimal strings all the way to NUMERIC.
 */
export function transactionUpsertStatement(
  rows: readonly TransactionRow[] | EncodedTransactionRows,
  guard?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { columns } = encodeTransactionRows(rows)
  const arrays = COLUMNS.map(([, type], i) => sql`${columns[i]}::${sql.raw(type)}[]`)
  return sql`
    insert into transactions (${COLUMN_LIST})
    select * from unnest(${sql.join(arrays)}) ${guard ? sql`where ${guard}` : sql``}
    on conflict (id) do update set ${UPDATE_LIST}
  `
}

/** Upserts keyed by transaction id (seed rule 7): applying the same rows again changes nothing. */
export async function upsertTransactions(
  db: Kysely<Database>,
  rows: readonly TransactionRow[],
): Promise<void> {
  if (rows.length === 0) return
  await transactionUpsertStatement(rows).execute(db)
}

export async function deleteTransactions(db: Kysely<Database>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0
  const result = await db.deleteFrom('transactions').where('id', '=', anyOf(ids)).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function deleteConnectionTransactions(
  db: Kysely<Database>,
  connectionId: string,
): Promise<void> {
  await db.deleteFrom('transactions').where('connection_id', '=', connectionId).execute()
}

/** After a full backfill: deletes the connection's rows that backfill did not see (gone at the bank). */
export async function deleteTransactionsNotInBackfill(
  db: Kysely<Database>,
  connectionId: string,
  backfillRun: string,
): Promise<number> {
  const result = await db
    .deleteFrom('transactions')
    .where('connection_id', '=', connectionId)
    .where((eb) => eb.or([eb('backfill_run', 'is', null), eb('backfill_run', '!=', backfillRun)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
