import type { SyncEventType } from '../api-client/index.js'
import type { SandboxState, TombstoneRecord, TransactionRecord } from './state.js'
import type { SyncStream } from './sync-cursor.js'

export type SyncChange =
  | { type: Exclude<SyncEventType, 'removed'>; record: TransactionRecord }
  | { type: 'removed'; record: TombstoneRecord }

/**
 * The changes a sync stream shows after position `afterSeq` (seed, sync rules 1–4): the latest change of each
 * transaction or tombstone of the stream with a later position, in position order. The stream is a current
 * mirror, so a transaction changed twice since the cursor shows once, as it is now. A transaction created after
 * the cursor is `added`, one created before it `modified`; a tombstone is `removed` even when the transaction
 * was also created after the cursor, since a client that bootstrapped by listing may hold it.
 */
export function changesAfter(
  state: Pick<SandboxState, 'transactions' | 'tombstones'>,
  stream: SyncStream,
  afterSeq: number,
  limit: number,
): { changes: SyncChange[]; hasMore: boolean } {
  const inStream = (record: TransactionRecord | TombstoneRecord) =>
    record.seq > afterSeq &&
    record.orgId === stream.orgId &&
    (stream.accountId === null || record.accountId === stream.accountId) &&
    (stream.connectionId === null || record.connectionId === stream.connectionId)
  const latest = new Map<string, SyncChange>()
  for (const record of state.transactions.values()) {
    if (inStream(record)) {
      latest.set(record.id, { type: record.createdSeq > afterSeq ? 'added' : 'modified', record })
    }
  }
  for (const record of state.tombstones.values()) {
    const live = latest.get(record.id)
    // A removed id that was later added again shows only its latest change.
    if (inStream(record) && (!live || live.record.seq < record.seq)) {
      latest.set(record.id, { type: 'removed', record })
    }
  }
  const ordered = [...latest.values()].sort((a, b) => a.record.seq - b.record.seq)
  return { changes: ordered.slice(0, limit), hasMore: ordered.length > limit }
}
