import { z } from 'zod'
import { Fields, IsoDate, IsoDateTime, Limit, Uuid, listResponse, type ListResponse } from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages, syncPages } from './pagination.js'
import {
  EntryType,
  Rail,
  SyncEventType,
  TRANSACTION_IDENTIFIERS,
  Transaction,
  TransactionStatus,
  readSyncEvents,
  type SyncChange,
  type SyncDialect,
  type UnreadableSyncEvent,
} from './sync-dialect.js'
import { pathSegment, validateParams } from './validate-params.js'

// The transaction's schema lives with the sync stream's reader (sync-dialect.ts), which parses one per event.
export { TransactionStatus, EntryType, Rail, TRANSACTION_IDENTIFIERS, Transaction }

export const TransactionSort = z.enum(['postedDate', '-postedDate', 'updatedAt', '-updatedAt'])
export type TransactionSort = z.infer<typeof TransactionSort>

export const TransactionListParams = z.object({
  cursor: z.string().min(1).nullish(),
  limit: Limit.default(100),
  sort: TransactionSort.default('-postedDate'),
  fields: Fields.optional(),
  accountId: Uuid.optional(),
  connectionId: Uuid.optional(),
  status: TransactionStatus.optional(),
  rail: Rail.optional(),
  postedDateGte: IsoDate.optional(),
  postedDateLt: IsoDate.optional(),
})
export type TransactionListParams = z.input<typeof TransactionListParams>

export const TransactionSyncParams = z.object({
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
  fields: Fields.optional(),
  accountId: Uuid.optional(),
  connectionId: Uuid.optional(),
})
export type TransactionSyncParams = z.input<typeof TransactionSyncParams>

export { SyncEventType }

/**
 * A sync event as the sandbox's seed dialect writes it (a removed event embeds only the identifiers of the
 * deleted transaction). The client reads every dialect (readSyncEvent), not only this one.
 */
export const SyncEvent = z.looseObject({
  eventId: z.string(),
  eventAt: IsoDateTime,
  type: SyncEventType,
  transaction: Transaction,
})
export type SyncEvent = z.infer<typeof SyncEvent>

export const SyncResponse = z.looseObject({
  events: z.array(SyncEvent),
  nextCursor: z.string(),
  hasMore: z.boolean(),
  meta: z.looseObject({ requestId: z.string() }),
})
export type SyncResponse = z.infer<typeof SyncResponse>

/** A sync page as the client parses it: the page's frame strictly, its events one by one (readSyncEvents). */
const SyncWireResponse = SyncResponse.extend({ events: z.array(z.unknown()) })

/** A sync page as the client returns it. */
export type SyncPageRead = {
  events: SyncChange[]
  /** Events that fit no dialect: a mirror quarantines them rather than halting. */
  unreadable: UnreadableSyncEvent[]
  /** What the page speaks (null for a page without a readable event). */
  dialect: SyncDialect | null
  nextCursor: string
  hasMore: boolean
  meta: { requestId: string }
}

export const TransactionGetParams = z.object({ fields: Fields.optional() })
export type TransactionGetParams = z.input<typeof TransactionGetParams>

const TransactionList = listResponse(Transaction)

/** transactions.list/get/sync, plus listAll, listPages and syncPages. */
export function createTransactionsResource(http: HttpClient) {
  /** GET /v1/transactions: historical browse; a cursor is valid only for the same filters and sort. */
  async function list(
    params: TransactionListParams = {},
    options?: CallOptions,
  ): Promise<ListResponse<Transaction>> {
    const query = validateParams(TransactionListParams, params)
    return http.request({ method: 'GET', path: '/v1/transactions', query, schema: TransactionList, options })
  }

  /**
   * GET /v1/transactions/sync: one page of change events after `cursor`; without a cursor, the stream head
   * (save it, backfill with list, then sync from it). A retried call reuses the same cursor. Events are read in
   * whichever dialect they come (sync-dialect.ts); one that fits none is returned in `unreadable`, not thrown.
   */
  async function sync(params: TransactionSyncParams = {}, options?: CallOptions): Promise<SyncPageRead> {
    const query = validateParams(TransactionSyncParams, params)
    const page = await http.request({
      method: 'GET',
      path: '/v1/transactions/sync',
      query,
      schema: SyncWireResponse,
      options,
    })
    const { dialect, changes, unreadable } = readSyncEvents(page.events)
    return { ...page, events: changes, unreadable, dialect }
  }

  return {
    list,
    listAll: (params: TransactionListParams = {}, options?: CallOptions) => listAll(list, params, options),
    listPages: (params: TransactionListParams = {}, options?: CallOptions) =>
      listPages(list, params, options),
    /** GET /v1/transactions/{id}; `fields` for a subset (identifiers always included). */
    async get(id: string, params: TransactionGetParams = {}, options?: CallOptions): Promise<Transaction> {
      const path = `/v1/transactions/${pathSegment('id', id)}`
      const query = validateParams(TransactionGetParams, params)
      return http.request({ method: 'GET', path, query, schema: Transaction, options })
    },
    sync,
    /** Sync pages from `cursor` (none: the stream head) until hasMore is false. */
    syncPages: (params: TransactionSyncParams = {}, options?: CallOptions) =>
      syncPages(sync, params, options),
  }
}
export type TransactionsResource = ReturnType<typeof createTransactionsResource>
