import { sql, type Kysely, type Selectable } from 'kysely'
import type { Evidence } from '../matcher/index.js'
import type { AllocationsTable, Database } from './database.js'
import { anyOf } from './any-of.js'

export type AllocationRow = Selectable<AllocationsTable>

export type NewAllocation = {
  transactionId: string
  invoiceId: string
  amount: string
  writeOff: string
  /** Why the write-off is booked (bank_fee, discount, …); null or absent without a write-off. */
  writeOffReason?: string | null
  /** The ledger account the write-off is booked to. */
  writeOffAccount?: string | null
  settled: boolean
  rule: string
  field: string | null
  reference: string | null
  via: string | null
  confidence: number
  madeBy: 'engine' | 'person'
  /** The user whose manual match this is (madeBy person). */
  actor?: string | null
  evidence: Evidence[]
}

export async function activeAllocationsOfTransactions(
  db: Kysely<Database>,
  transactionIds: readonly string[],
): Promise<AllocationRow[]> {
  if (transactionIds.length === 0) return []
  return db
    .selectFrom('allocations')
    .selectAll()
    .where('transaction_id', '=', anyOf(transactionIds))
    .where('reversed_at', 'is', null)
    .orderBy('id')
    .execute()
}

export async function reverseAllocations(
  db: Kysely<Database>,
  reversals: ReadonlyArray<{ id: string; reason: string }>,
  at: Date,
): Promise<void> {
  for (const { id, reason } of reversals) {
    await db
      .updateTable('allocations')
      .set({ reversed_at: at, reversal_reason: reason })
      .where('id', '=', id)
      .where('reversed_at', 'is', null)
      .execute()
  }
}

export async function insertAllocations(
  db: Kysely<Database>,
  allocations: readonly NewAllocation[],
  at: Date,
): Promise<AllocationRow[]> {
  const written: AllocationRow[] = []
  // 16 columns a row: 500 rows stay far below PostgreSQL's 65,535 bind parameters (a 10,000-line advice).
  for (let start = 0; start < allocations.length; start += 500) {
    written.push(...(await insertAllocationChunk(db, allocations.slice(start, start + 500), at)))
  }
  return written
}

function insertAllocationChunk(
  db: Kysely<Database>,
  allocations: readonly NewAllocation[],
  at: Date,
): Promise<AllocationRow[]> {
  return db
    .insertInto('allocations')
    .values(
      allocations.map((allocation) => ({
        transaction_id: allocation.transactionId,
        invoice_id: allocation.invoiceId,
        amount: allocation.amount,
        write_off: allocation.writeOff,
        write_off_reason: allocation.writeOffReason ?? null,
        write_off_account: allocation.writeOffAccount ?? null,
        settled: allocation.settled,
        rule: allocation.rule,
        field: allocation.field,
        matched_reference: allocation.reference,
        via: allocation.via,
        confidence: allocation.confidence,
        made_by: allocation.madeBy,
        actor: allocation.actor ?? null,
        evidence: JSON.stringify(allocation.evidence),
        created_at: at,
      })),
    )
    .returningAll()
    .execute()
}

export async function findAllocation(db: Kysely<Database>, id: string): Promise<AllocationRow | undefined> {
  if (!/^\d{1,18}$/.test(id)) return undefined
  return db.selectFrom('allocations').selectAll().where('id', '=', id).executeTakeFirst()
}

export type AllocationFilter = {
  invoiceId?: string
  transactionId?: string
  /** Reversed allocations too. @defaultValue false */
  includeReversed?: boolean
}

/** A keyset page of allocations in id order; `after` is the last id of the previous page. */
export async function listAllocations(
  db: Kysely<Database>,
  filter: AllocationFilter,
  after: string | null,
  limit: number,
): Promise<AllocationRow[]> {
  let query = db.selectFrom('allocations').selectAll()
  if (filter.invoiceId) query = query.where('invoice_id', '=', filter.invoiceId)
  if (filter.transactionId) query = query.where('transaction_id', '=', filter.transactionId)
  if (!filter.includeReversed) query = query.where('reversed_at', 'is', null)
  if (after) query = query.where('id', '>', after)
  return query.orderBy('id').limit(limit).execute()
}

/** What the active allocations of an invoice write off (the engine's part of its written-off amount). */
export async function allocatedWriteOffOf(db: Kysely<Database>, invoiceId: string): Promise<string> {
  const row = await db
    .selectFrom('allocations')
    .select(sql<string>`coalesce(sum(write_off), 0)::text`.as('total'))
    .where('invoice_id', '=', invoiceId)
    .where('reversed_at', 'is', null)
    .executeTakeFirstOrThrow()
  return row.total
}
