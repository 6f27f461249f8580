import { randomUUID } from 'node:crypto'
import type { Transaction } from '../api-client/index.js'
import type { SandboxContext } from './context.js'
import type { TransactionRecord } from './state.js'

/**
 * The only place transactions change. Every change takes the next sync position and a fresh event id, so the
 * sync stream (current-mirror semantics, seed rules 1–3) is the set of latest changes ordered by position.
 */

type NewTransaction = Omit<Transaction, 'updatedAt'> & { id: string; connectionId: string; accountId: string }

function stamp(ctx: SandboxContext) {
  const seq = ++ctx.state.syncSeq
  // Event ids come from the system's randomness, not the seed, so they stay unique across restarts.
  return { seq, eventId: `sev_${randomUUID()}`, eventAt: ctx.clock.now() }
}

export function addTransaction(
  ctx: SandboxContext,
  input: NewTransaction,
  options: { notify?: boolean } = {},
): TransactionRecord {
  const account = ctx.state.accounts.get(input.accountId)
  if (!account) throw new Error(`ledger: no account ${input.accountId}`)
  if (ctx.state.transactions.has(input.id)) throw new Error(`ledger: transaction ${input.id} exists`)
  const change = stamp(ctx)
  const record: TransactionRecord = {
    ...input,
    updatedAt: change.eventAt.toISOString(),
    orgId: account.orgId,
    entityId: account.entityId,
    createdSeq: change.seq,
    ...change,
  }
  ctx.state.transactions.set(record.id, record)
  if (options.notify !== false) ctx.noteTransactionsChanged(record.connectionId)
  return record
}

export function modifyTransaction(
  ctx: SandboxContext,
  id: string,
  changes: Partial<Omit<Transaction, 'id' | 'connectionId' | 'accountId' | 'updatedAt'>>,
  options: { notify?: boolean } = {},
): TransactionRecord {
  const current = ctx.state.transactions.get(id)
  if (!current) throw new Error(`ledger: no transaction ${id}`)
  const change = stamp(ctx)
  const record: TransactionRecord = {
    ...current,
    ...changes,
    updatedAt: change.eventAt.toISOString(),
    ...change,
  }
  ctx.state.transactions.set(id, record)
  if (options.notify !== false) ctx.noteTransactionsChanged(record.connectionId)
  return record
}

export function removeTransaction(ctx: SandboxContext, id: string, options: { notify?: boolean } = {}): void {
  const current = ctx.state.transactions.get(id)
  if (!current) throw new Error(`ledger: no transaction ${id}`)
  const change = stamp(ctx)
  ctx.state.transactions.delete(id)
  ctx.state.tombstones.set(id, {
    id,
    connectionId: current.connectionId,
    accountId: current.accountId,
    orgId: current.orgId,
    createdSeq: current.createdSeq,
    ...change,
  })
  if (options.notify !== false) ctx.noteTransactionsChanged(current.connectionId)
}
