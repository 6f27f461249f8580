import { z } from 'zod'
import { DecimalString, Fields, IsoDate, IsoDateTime, Limit, Uuid } from './common.js'

export const TransactionStatus = z.enum(['pending', 'posted', 'reversed', 'cancelled', 'unknown'])
export type TransactionStatus = z.infer<typeof TransactionStatus>
export const EntryType = z.enum(['credit', 'debit'])
export const Rail = z.enum([
  'internalTransfer',
  'card',
  'ach',
  'sepaCredit',
  'sepaDebit',
  'bacsDirectDebit',
  'wire',
  'swift',
  'fasterPayments',
  'check',
  'cash',
  'crypto',
  'other',
  'unknown',
])
export type Rail = z.infer<typeof Rail>

/** The identifiers every transaction carries, whatever the fieldset. */
export const TRANSACTION_IDENTIFIERS = ['id', 'connectionId', 'accountId'] as const

const text = z.string().nullable().optional()

/** The seed does not say which fields are required: identifiers are, the rest may be absent or null. */
export const Transaction = z.looseObject({
  id: Uuid,
  connectionId: Uuid,
  accountId: Uuid,
  postedDate: IsoDate.nullable().optional(),
  updatedAt: IsoDateTime.optional(),
  amount: DecimalString.optional(),
  currency: z.string().optional(),
  description: text,
  rawDescription: text,
  customerReference: text,
  bankReference: text,
  paymentReference: text,
  baiCode: text,
  category: text,
  subcategory: text,
  mcc: text,
  merchantName: text,
  counterpartyName: text,
  counterpartyAccountMasked: text,
  status: TransactionStatus.optional(),
  entryType: EntryType.optional(),
  rail: Rail.optional(),
})
export type Transaction = z.infer<typeof Transaction>

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

/** The field that names a sync event's kind (the seed leaves its name open). */
export const SyncEventType = z.enum(['added', 'modified', 'removed'])
export type SyncEventType = z.infer<typeof SyncEventType>

/** A removed event embeds only the identifiers of the deleted transaction. */
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
