import type { SyncEventType } from '../api-client/index.js'
import type { SandboxState, TombstoneRecord, TransactionRecord } from './state.js'
import type { SyncStream } from './sync-cursor.js'

export type SyncChange =
  | { type: Exclude<SyncEventType, 'removed'>; record: TransactionRecord }
  | { type: 'removed'; record: TombstoneRecord }

type StreamState = Pick<SandboxState, 'transactions' | 'tombstones' | 'syncSeq'>
type Entry = TransactionRecord | TombstoneRecord

/**
 * Every current record and tombstone ordered by sync position, rebuilt only when the ledger moved on (every
 * change takes the next syncSeq), so a drain of N changes in pages costs a binary search and one page each
 * instead of a scan and sort of the whole ledger per page.
 */
const positionIndexes = new WeakMap<StreamState, { seq: number; entries: Entry[] }>()

function positionIndex(state: StreamState): Entry[] {
  const cached = positionIndexes.get(state)
  if (cached && cached.seq === state.syncSeq) return cached.entries
  const entries: Entry[] = [...state.transactions.values(), ...state.tombstones.values()]
  entries.sort((a, b) => a.seq - b.seq)
  positionIndexes.set(state, { seq: state.syncSeq, entries })
  return entries
}

function firstAfter(entries: readonly Entry[], afterSeq: number): number {
  let low = 0
  let high = entries.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (entries[mid]!.seq <= afterSeq) low = mid + 1
    else high = mid
  }
  return low
}

/**
 * The changes a sync stream shows after position `afterSeq` (seed, sync rules 1–4): the latest change of each
 * transaction or tombstone of the stream with a later position, in position order. The stream is a current
 * mirror, so a transaction changed twice since the cursor shows once, as it is now. A transaction created after
 * the cursor is `added`, one created before it `modified`; a tombstone is `removed` even when the transaction
 * was also created after the cursor, since a client that bootstrapped by listing may hold it.
 */
export function changesAfter(
  state: StreamState,
  stream: SyncStream,
  afterSeq: number,
  limit: number,
): { changes: SyncChange[]; hasMore: boolean } {
  const entries = positionIndex(state)
  const changes: SyncChange[] = []
  for (let i = firstAfter(entries, afterSeq); i < entries.length; i++) {
    const record = entries[i]!
    if (
      record.orgId !== stream.orgId ||
      (stream.accountId !== null && record.accountId !== stream.accountId) ||
      (stream.connectionId !== null && record.connectionId !== stream.connectionId)
    ) {
      continue
    }
    const live = state.transactions.get(record.id)
    const isLive = live === record
    // A removed id that was added again (or the reverse) shows only its latest change.
    const other = isLive ? state.tombstones.get(record.id) : live
    if (other && other.seq > record.seq) continue
    if (changes.length === limit) return { changes, hasMore: true }
    changes.push(
      isLive
        ? { type: record.createdSeq > afterSeq ? 'added' : 'modified', record: record as TransactionRecord }
        : { type: 'removed', record: record as TombstoneRecord },
    )
  }
  return { changes, hasMore: false }
}
