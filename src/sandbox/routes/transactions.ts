import { Router } from 'express'
import { z } from 'zod'
import {
  Fields,
  TransactionListParams,
  TransactionSyncParams,
  type SyncEvent,
} from '../../api-client/index.js'
import { ApiError, notFound, parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import type { SandboxContext } from '../context.js'
import { dialectOf } from '../dialects.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'
import {
  assertTransactionFields,
  presentTransaction,
  selectTransactionFields,
} from '../present-transaction.js'
import { decodeSyncCursor, encodeSyncCursor, syncCursorKey, type SyncStream } from '../sync-cursor.js'
import { changesAfter, type SyncChange } from '../sync-stream.js'
import { queryTransactions } from '../transaction-query.js'

const GetParams = z.object({ fields: Fields.optional() })

function syncEvent(change: SyncChange, fields: string | undefined): SyncEvent {
  const { record } = change
  const transaction =
    change.type === 'removed'
      ? { id: record.id, connectionId: record.connectionId, accountId: record.accountId }
      : selectTransactionFields(presentTransaction(change.record), fields)
  return {
    eventId: record.eventId,
    eventAt: record.eventAt.toISOString(),
    type: change.type,
    transaction: transaction as SyncEvent['transaction'],
  }
}

/** GET /v1/transactions, /v1/transactions/sync and /v1/transactions/{id}; scope transactions:read. */
export function transactionRoutes(ctx: SandboxContext): Router {
  const router = Router()
  const cursorKey = syncCursorKey(ctx.settings.seed)
  const read = requireScope('transactions:read')

  router.get(
    '/transactions',
    read,
    route((req, res) => {
      const params = parseInput(TransactionListParams, req.query, 'query')
      assertTransactionFields(params.fields)
      const { orgId } = callerOf(res)
      const records = queryTransactions(ctx.state.transactions.values(), { ...params, orgId }, params.sort)
      const page = paginate(records, params)
      res.json({
        data: page.data.map((record) => selectTransactionFields(presentTransaction(record), params.fields)),
        pagination: page.pagination,
        meta: metaOf(res),
      })
    }),
  )

  router.get(
    '/transactions/sync',
    read,
    route((req, res) => {
      const params = parseInput(TransactionSyncParams, req.query, 'query')
      assertTransactionFields(params.fields)
      const stream: SyncStream = {
        orgId: callerOf(res).orgId,
        accountId: params.accountId ?? null,
        connectionId: params.connectionId ?? null,
      }
      const now = ctx.clock.now()
      const head = ctx.state.syncSeq
      const cursorAt = (seq: number) => encodeSyncCursor({ ...stream, seq, issuedAt: now }, cursorKey)
      // Seed, sync rule 5: the first call only fixes the stream head; the client backfills by listing.
      if (params.cursor === undefined) {
        res.json({ events: [], nextCursor: cursorAt(head), hasMore: false, meta: metaOf(res) })
        return
      }
      const cursor = decodeSyncCursor(params.cursor, cursorKey, stream, now)
      if (cursor.seq > head) {
        throw new ApiError(
          400,
          'invalid_cursor',
          'The sync cursor lies beyond this stream (was the sandbox reset?); start a new stream without a cursor.',
        )
      }
      const page = changesAfter(ctx.state, stream, cursor.seq, params.limit)
      // Past the last change shown every later position up to the head belongs to other streams or was
      // superseded, so a drained stream resumes from the head.
      const nextSeq = page.hasMore ? page.changes.at(-1)!.record.seq : head
      res.json({
        events: page.changes.map((change) =>
          dialectOf(ctx.settings.dialect).syncEvent(syncEvent(change, params.fields)),
        ),
        nextCursor: cursorAt(nextSeq),
        hasMore: page.hasMore,
        meta: metaOf(res),
      })
    }),
  )

  router.get(
    '/transactions/:id',
    read,
    route((req, res) => {
      const { fields } = parseInput(GetParams, req.query, 'query')
      const id = String(req.params.id)
      const record = ctx.state.transactions.get(id)
      if (!record || record.orgId !== callerOf(res).orgId) throw notFound('transaction', id)
      res.json(selectTransactionFields(presentTransaction(record), fields))
    }),
  )

  return router
}
