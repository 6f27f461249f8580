import { z } from 'zod'
import { DecimalString, IsoDate, IsoDateTime, Uuid } from './common.js'

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
