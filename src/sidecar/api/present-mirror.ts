import type { Account, Transaction } from '../../api-client/index.js'
import type { MirroredAccount, MirroredTransaction } from '../../store/index.js'

/**
 * A mirrored transaction in the bank API's Transaction shape: camelCase, amounts as the decimal strings stored,
 * ISO dates. A field the bank never sent (a sparse answer) is left out rather than invented.
 */
export function presentMirroredTransaction(row: MirroredTransaction): Transaction {
  const tx: Transaction = { id: row.id, connectionId: row.connection_id, accountId: row.account_id }
  tx.postedDate = row.posted_date
  if (row.updated_at !== null) tx.updatedAt = row.updated_at.toISOString()
  if (row.amount !== null) tx.amount = row.amount
  if (row.currency !== null) tx.currency = row.currency
  tx.description = row.description
  tx.rawDescription = row.raw_description
  tx.customerReference = row.customer_reference
  tx.bankReference = row.bank_reference
  tx.paymentReference = row.payment_reference
  tx.baiCode = row.bai_code
  tx.category = row.category
  tx.subcategory = row.subcategory
  tx.mcc = row.mcc
  tx.merchantName = row.merchant_name
  tx.counterpartyName = row.counterparty_name
  tx.counterpartyAccountMasked = row.counterparty_account_masked
  if (row.status !== null) tx.status = row.status as Transaction['status']
  if (row.entry_type !== null) tx.entryType = row.entry_type as Transaction['entryType']
  if (row.rail !== null) tx.rail = row.rail as Transaction['rail']
  return tx
}

/** A mirrored account in the bank API's Account shape (the deprecated flat number fields are always null). */
export function presentMirroredAccount(row: MirroredAccount): Account {
  return {
    id: row.id,
    connectionId: row.connection_id,
    type: row.type as Account['type'],
    currency: row.currency,
    name: row.name,
    status: row.status as Account['status'],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    officialName: row.official_name,
    maskedNumber: row.masked_number,
    accountNumber: null,
    routingNumber: null,
    swiftBic: null,
    paymentIdentifiers: row.payment_identifiers as Account['paymentIdentifiers'],
    currentBalance: row.current_balance,
    availableBalance: row.available_balance,
    balanceAsOf: row.balance_as_of?.toISOString() ?? null,
  }
}
