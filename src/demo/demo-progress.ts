import { setTimeout as delay } from 'node:timers/promises'
import { Decimal } from 'decimal.js'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../store/index.js'
import type { DemoPayment } from './demo-plan.js'
import type { DemoRun } from './run-demo-story.js'

/** A payment whose reconciliation is not where the story expects it yet, and why. */
export type DemoShortfall = { payment: DemoPayment; reason: string }

type MirroredPayment = { id: string; status: string | null; amount: string | null; allocated: string }

/**
 * Whether a payment is reconciled as the story expects: mirrored in its final (posted) state, its settled
 * allocations adding up to what it should pay, and exactly the open exception it should raise. Pure.
 */
export function shortfallOf(
  payment: DemoPayment,
  mirrored: MirroredPayment | undefined,
  openExceptions: readonly string[],
): string | null {
  if (!mirrored) return 'not mirrored yet'
  if (mirrored.status !== 'posted') return `mirrored as ${mirrored.status}, not posted yet`
  if (!new Decimal(mirrored.allocated).eq(payment.expect.allocated))
    return `${mirrored.allocated} of it allocated, ${payment.expect.allocated} expected`
  const expected = payment.expect.exception
  if (expected && !openExceptions.includes(expected)) return `no open ${expected} exception yet`
  const unexpected = openExceptions.filter((type) => type !== expected)
  if (unexpected.length > 0) return `unexpected open exception ${unexpected.join(', ')}`
  return null
}

/** Every story payment not reconciled yet, read from the store. */
export async function demoShortfalls(db: Kysely<Database>, run: DemoRun): Promise<DemoShortfall[]> {
  const ids = [...run.transactionIds.values()]
  const mirrored = new Map<string, MirroredPayment>()
  const exceptions = new Map<string, string[]>()
  if (ids.length > 0) {
    const rows = await sql<MirroredPayment>`
      select t.id, t.status, t.amount::text as amount,
        coalesce((select sum(a.amount) from allocations a
          where a.transaction_id = t.id and a.reversed_at is null and a.settled), 0)::text as allocated
      from transactions t where t.id::text = any(${ids}::text[])
    `.execute(db)
    for (const row of rows.rows) mirrored.set(row.id, row)
    const open = await db
      .selectFrom('match_exceptions')
      .select(['transaction_id', 'type'])
      .where('resolved_at', 'is', null)
      .where('transaction_id', 'in', ids)
      .execute()
    for (const row of open)
      exceptions.set(row.transaction_id!, [...(exceptions.get(row.transaction_id!) ?? []), row.type])
  }
  const shortfalls: DemoShortfall[] = []
  for (const payment of run.plan.payments) {
    const id = run.transactionIds.get(payment.key)
    const reason = id ? shortfallOf(payment, mirrored.get(id), exceptions.get(id) ?? []) : 'not paid yet'
    if (reason) shortfalls.push({ payment, reason })
  }
  return shortfalls
}

/**
 * Waits until every story payment is reconciled, checking the store every `intervalMs` until `deadline`; returns
 * what is still missing then (empty: all reconciled).
 */
export async function waitUntilReconciled(
  db: Kysely<Database>,
  run: DemoRun,
  options: { deadline: number; intervalMs?: number; signal?: AbortSignal; now?: () => number },
): Promise<DemoShortfall[]> {
  const now = options.now ?? Date.now
  for (;;) {
    const shortfalls = await demoShortfalls(db, run)
    if (shortfalls.length === 0 || now() >= options.deadline) return shortfalls
    await delay(Math.min(options.intervalMs ?? 200, Math.max(0, options.deadline - now())), undefined, {
      signal: options.signal,
    })
  }
}

/** Waits until every given transaction is in the mirror, whatever its status (or the deadline passes). */
export async function waitUntilMirrored(
  db: Kysely<Database>,
  transactionIds: readonly string[],
  options: { deadline: number; intervalMs?: number; signal?: AbortSignal },
): Promise<boolean> {
  if (transactionIds.length === 0) return true
  for (;;) {
    const row = await db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('id', 'in', [...transactionIds])
      .executeTakeFirstOrThrow()
    if (Number(row.n) === transactionIds.length) return true
    if (Date.now() >= options.deadline) return false
    await delay(options.intervalMs ?? 100, undefined, { signal: options.signal })
  }
}
