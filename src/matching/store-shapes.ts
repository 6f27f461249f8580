import type {
  MatchCustomer,
  MatchInvoice,
  MatchTransaction,
  MatchTransactionStatus,
} from '../matcher/index.js'
import type { CustomerLinkRow, CustomerRow, InvoiceRow, MatchTransactionRow } from '../store/index.js'

const STATUSES: ReadonlySet<string> = new Set(['pending', 'posted', 'reversed', 'cancelled', 'unknown'])

/** A mirrored row as the matcher reads it; null when it has no amount to match. */
export function matchTransactionOf(row: MatchTransactionRow): MatchTransaction | null {
  if (row.amount === null || row.currency === null) return null
  return {
    id: row.id,
    accountId: row.account_id,
    entityId: row.entity_id,
    amount: row.amount,
    currency: row.currency,
    status: (STATUSES.has(row.status ?? '') ? row.status : 'unknown') as MatchTransactionStatus,
    postedDate: row.posted_date,
    updatedAt: row.updated_at ? row.updated_at.toISOString() : null,
    paymentReference: row.payment_reference,
    customerReference: row.customer_reference,
    description: row.description,
    rawDescription: row.raw_description,
    counterpartyName: row.counterparty_name,
    counterpartyAccountMasked: row.counterparty_account_masked,
    bankReference: row.bank_reference,
  }
}

export function matchInvoiceOf(row: InvoiceRow): MatchInvoice {
  return {
    id: row.id,
    number: row.number,
    amount: row.amount,
    currency: row.currency,
    customerName: row.customer_name,
    customerAliases: row.customer_aliases,
    issueDate: row.issue_date,
    dueDate: row.due_date,
    entityId: row.entity_id,
    accountId: row.account_id,
    void: row.voided_at !== null,
    customerId: row.customer_id,
    paymentReference: row.payment_reference,
    earlyPaymentDiscount:
      row.discount_percent === null || row.discount_until === null
        ? null
        : { percent: row.discount_percent, until: row.discount_until },
    credits: row.credited === '0' ? null : row.credited,
    writtenOff: row.written_off === '0' ? null : row.written_off,
  }
}

/** A customer of the master data with what its active learned links taught. */
export function matchCustomerOf(row: CustomerRow, links: readonly CustomerLinkRow[]): MatchCustomer {
  return {
    id: row.id,
    name: row.name,
    aliases: row.aliases,
    bankAccounts: row.bank_accounts,
    learnedAccounts: links.filter((link) => link.kind === 'account').map((link) => link.value),
    learnedNames: links.filter((link) => link.kind === 'name').map((link) => link.value),
  }
}
