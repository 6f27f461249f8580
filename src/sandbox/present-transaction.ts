import { TRANSACTION_IDENTIFIERS, type Transaction } from '../api-client/index.js'
import { selectFields } from './fields.js'
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
 * reports nothing), the bank's internal bookkeeping (organization, sync position, event id) stripped.
 */
export function presentTransaction(record: TransactionRecord): Transaction {
  // One literal, not a loop of keyed stores: a sync page presents 500 of them (a test keeps it to TRANSACTION_FIELDS).
  return {
    id: record.id,
    connectionId: record.connectionId,
    accountId: record.accountId,
    postedDate: record.postedDate ?? null,
    updatedAt: record.updatedAt ?? null,
    amount: record.amount ?? null,
    currency: record.currency ?? null,
    description: record.description ?? null,
    rawDescription: record.rawDescription ?? null,
    customerReference: record.customerReference ?? null,
    bankReference: record.bankReference ?? null,
    paymentReference: record.paymentReference ?? null,
    baiCode: record.baiCode ?? null,
    category: record.category ?? null,
    subcategory: record.subcategory ?? null,
    mcc: record.mcc ?? null,
    merchantName: record.merchantName ?? null,
    counterpartyName: record.counterpartyName ?? null,
    counterpartyAccountMasked: record.counterpartyAccountMasked ?? null,
    status: record.status ?? null,
    entryType: record.entryType ?? null,
    rail: record.rail ?? null,
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
