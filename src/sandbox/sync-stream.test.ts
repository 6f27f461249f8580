import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createVirtualClock } from '../clock/index.js'
import type { SandboxContext } from './context.js'
import { addTransaction, modifyTransaction, removeTransaction } from './ledger.js'
import { createEmptyState, type AccountRecord, type TransactionRecord } from './state.js'
import type { SyncStream } from './sync-cursor.js'
import { changesAfter } from './sync-stream.js'

const ACCOUNTS = [
  { id: '00000000-0000-4000-8000-00000000000a', connectionId: '00000000-0000-4000-8000-0000000000c1' },
  { id: '00000000-0000-4000-8000-00000000000b', connectionId: '00000000-0000-4000-8000-0000000000c1' },
  { id: '00000000-0000-4000-8000-00000000000c', connectionId: '00000000-0000-4000-8000-0000000000c2' },
]
const ORG = 'org_main'

function bank(): SandboxContext {
  const state = createEmptyState()
  for (const [i, a] of ACCOUNTS.entries()) {
    // Only the fields the ledger reads matter here; the last account belongs to another organization.
    state.accounts.set(a.id, { ...a, orgId: i === 2 ? 'org_other' : ORG, entityId: 'e' } as AccountRecord)
  }
  return {
    state,
    clock: createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false }),
    noteTransactionsChanged: () => undefined,
  } as unknown as SandboxContext
}

let nextId = 0
function add(ctx: SandboxContext, accountIndex: number, amount: string): TransactionRecord {
  const account = ACCOUNTS[accountIndex]!
  const id = `00000000-0000-4000-8000-${String(++nextId).padStart(12, '0')}`
  return addTransaction(ctx, {
    id,
    connectionId: account.connectionId,
    accountId: account.id,
    amount,
    status: 'pending',
  })
}

type Op =
  | { kind: 'add'; account: number; amount: number }
  | { kind: 'modify'; pick: number; amount: number }
  | { kind: 'remove'; pick: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), account: fc.nat(2), amount: fc.integer() }),
  fc.record({ kind: fc.constant('modify' as const), pick: fc.nat(), amount: fc.integer() }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
)

function apply(ctx: SandboxContext, op: Op): void {
  const ids = [...ctx.state.transactions.keys()]
  if (op.kind === 'add') add(ctx, op.account, String(op.amount))
  else if (ids.length === 0) return
  else if (op.kind === 'modify')
    modifyTransaction(ctx, ids[op.pick % ids.length]!, { amount: String(op.amount) })
  else removeTransaction(ctx, ids[op.pick % ids.length]!)
}

/** A client mirror that follows seed rules 5–7: upsert by id, delete on removed, move on after a page. */
function drain(
  ctx: SandboxContext,
  stream: SyncStream,
  from: number,
  mirror: Map<string, unknown>,
  limit: number,
) {
  let cursor = from
  for (;;) {
    const page = changesAfter(ctx.state, stream, cursor, limit)
    const seqs = page.changes.map((c) => c.record.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(page.changes.map((c) => c.record.id)).size).toBe(page.changes.length)
    for (const change of page.changes) {
      if (change.type === 'removed') mirror.delete(change.record.id)
      else mirror.set(change.record.id, change.record.amount)
    }
    cursor = page.hasMore ? page.changes.at(-1)!.record.seq : ctx.state.syncSeq
    if (!page.hasMore) return cursor
  }
}

function truth(ctx: SandboxContext, stream: SyncStream): Map<string, unknown> {
  return new Map(
    [...ctx.state.transactions.values()]
      .filter(
        (t) =>
          t.orgId === stream.orgId &&
          (stream.accountId === null || t.accountId === stream.accountId) &&
          (stream.connectionId === null || t.connectionId === stream.connectionId),
      )
      .map((t) => [t.id, t.amount]),
  )
}

const streamArb: fc.Arbitrary<SyncStream> = fc.constantFrom(
  { orgId: ORG, accountId: null, connectionId: null },
  { orgId: ORG, accountId: ACCOUNTS[0]!.id, connectionId: null },
  { orgId: ORG, accountId: null, connectionId: ACCOUNTS[0]!.connectionId },
  { orgId: 'org_other', accountId: null, connectionId: null },
)

describe('sync stream', () => {
  it('rule 5: head, then a list backfill, then polling gives an exact mirror, whatever changes in between', () => {
    fc.assert(
      fc.property(
        fc.array(opArb),
        fc.array(opArb),
        fc.array(opArb),
        fc.array(opArb),
        streamArb,
        fc.integer({ min: 1, max: 5 }),
        (before, afterHead, afterBackfill, afterPoll, stream, limit) => {
          const ctx = bank()
          before.forEach((op) => apply(ctx, op))
          const head = ctx.state.syncSeq
          afterHead.forEach((op) => apply(ctx, op))
          const mirror = truth(ctx, stream)
          afterBackfill.forEach((op) => apply(ctx, op))
          const cursor = drain(ctx, stream, head, mirror, limit)
          expect(mirror).toEqual(truth(ctx, stream))
          afterPoll.forEach((op) => apply(ctx, op))
          drain(ctx, stream, cursor, mirror, limit)
          expect(mirror).toEqual(truth(ctx, stream))
        },
      ),
    )
  })

  it('rule 1: events come in sync position order, not postedDate or updatedAt order', () => {
    const ctx = bank()
    const first = add(ctx, 0, '1')
    const second = add(ctx, 0, '2')
    modifyTransaction(ctx, first.id, { postedDate: '2020-01-01' })
    const stream = { orgId: ORG, accountId: null, connectionId: null }
    expect(changesAfter(ctx.state, stream, 0, 10).changes.map((c) => c.record.id)).toEqual([
      second.id,
      first.id,
    ])
  })

  it('rule 2: the stream is a current mirror, a transaction changed twice shows once, as it is now', () => {
    const ctx = bank()
    const t = add(ctx, 0, '1')
    const cursor = ctx.state.syncSeq
    modifyTransaction(ctx, t.id, { amount: '2' })
    modifyTransaction(ctx, t.id, { amount: '3' })
    const { changes } = changesAfter(
      ctx.state,
      { orgId: ORG, accountId: null, connectionId: null },
      cursor,
      10,
    )
    expect(changes.map((c) => [c.type, c.type === 'removed' ? null : c.record.amount])).toEqual([
      ['modified', '3'],
    ])
  })

  it('rule 3: a transaction created after the cursor is added, one created before it modified', () => {
    const ctx = bank()
    const old = add(ctx, 0, '1')
    const cursor = ctx.state.syncSeq
    const fresh = add(ctx, 0, '2')
    modifyTransaction(ctx, old.id, { amount: '5' })
    modifyTransaction(ctx, fresh.id, { amount: '6' })
    const { changes } = changesAfter(
      ctx.state,
      { orgId: ORG, accountId: null, connectionId: null },
      cursor,
      10,
    )
    expect(changes.map((c) => [c.record.id, c.type])).toEqual([
      [old.id, 'modified'],
      [fresh.id, 'added'],
    ])
  })

  it('rule 4: a transaction added after the cursor and removed before the read shows as removed', () => {
    const ctx = bank()
    const cursor = ctx.state.syncSeq
    const t = add(ctx, 0, '1')
    removeTransaction(ctx, t.id)
    const { changes } = changesAfter(
      ctx.state,
      { orgId: ORG, accountId: null, connectionId: null },
      cursor,
      10,
    )
    expect(changes.map((c) => [c.record.id, c.type])).toEqual([[t.id, 'removed']])
  })

  it('limit caps the events and hasMore says whether more follow', () => {
    const ctx = bank()
    for (let i = 0; i < 3; i++) add(ctx, 0, String(i))
    const stream = { orgId: ORG, accountId: null, connectionId: null }
    expect(changesAfter(ctx.state, stream, 0, 2)).toMatchObject({ hasMore: true })
    expect(changesAfter(ctx.state, stream, 0, 2).changes).toHaveLength(2)
    expect(changesAfter(ctx.state, stream, 0, 3)).toMatchObject({ hasMore: false })
  })
})
