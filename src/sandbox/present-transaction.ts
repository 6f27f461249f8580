import { TRANSACTION_IDENTIFIERS, type Transaction } from '../api-client/index.js'
import { selectFields } from './fields.js'
import { plainText } from './latin1-json.js'
import type { TransactionRecord } from './state.js'

/** Every field of the API Transaction, in the order the sandbox writes them. */
export const TRANSACTION_FIELDS = [
  'id',
  'connectionId',
  'accountId',
  'postedDate',
  'updatedAt',
  'amount',
  'currency',
  'description',
  'rawDescription',
  'customerReference',
  'bankReference',
  'paymentReference',
  'baiCode',
  'category',
  'subcategory',
  'mcc',
  'merchantName',
  'counterpartyName',
  'counterpartyAccountMasked',
  'status',
  'entryType',
  'rail',
] as const satisfies readonly (keyof Transaction)[]

/**
 * A transaction record as the API shapes it: every field of the seed's table present (null where the bank
 * reports nothing), the bank's internal bookkeeping (organization, sync position, event id) stripped. `text` maps
 * every value (a sync page packs them for its encoding, latin1-json.ts).
 */
export function presentTransaction(
  record: TransactionRecord,
  text: <T>(value: T) => T = plainText,
): Transaction {
  // One literal, not a loop of keyed stores: a sync page presents 500 of them (a test keeps it to TRANSACTION_FIELDS).
  return {
    id: text(record.id),
    connectionId: text(record.connectionId),
    accountId: text(record.accountId),
    postedDate: text(record.postedDate ?? null),
    updatedAt: text(record.updatedAt ?? null),
    amount: text(record.amount ?? null),
    currency: text(record.currency ?? null),
    description: text(record.description ?? null),
    rawDescription: text(record.rawDescription ?? null),
    customerReference: text(record.customerReference ?? null),
    bankReference: text(record.bankReference ?? null),
    paymentReference: text(record.paymentReference ?? null),
    baiCode: text(record.baiCode ?? null),
    category: text(record.category ?? null),
    subcategory: text(record.subcategory ?? null),
    mcc: text(record.mcc ?? null),
    merchantName: text(record.merchantName ?? null),
    counterpartyName: text(record.counterpartyName ?? null),
    counterpartyAccountMasked: text(record.counterpartyAccountMasked ?? null),
    status: text(record.status ?? null),
    entryType: text(record.entryType ?? null),
    rail: text(record.rail ?? null),
  } satisfies Record<(typeof TRANSACTION_FIELDS)[number], unknown> as Transaction
}

/**
 * Applies a sparse fieldset to a presented transaction; the identifiers are always kept.
 * @throws ApiError 400 validation_error naming any unknown field
 */
export function selectTransactionFields(
  transaction: Transaction,
  fields: string | null | undefined,
): Partial<Transaction> {
  return selectFields(transaction, fields, TRANSACTION_IDENTIFIERS, TRANSACTION_FIELDS)
}

/** Checks a fieldset before any transaction is at hand, so an empty page still rejects an unknown field. */
export function assertTransactionFields(fields: string | null | undefined): void {
  selectFields({}, fields, TRANSACTION_IDENTIFIERS, TRANSACTION_FIELDS)
}
