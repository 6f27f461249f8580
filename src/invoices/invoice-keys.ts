import { invoiceMatchKeys, nameLookupKeys, normalizedInvoiceNumber } from '../matcher/index.js'
import type { InvoiceKeys } from '../store/index.js'

/** Bump when any rule below changes: the sidecar re-keys stored invoices of an older version at start-up. */
export const INVOICE_KEYS_VERSION = 3

/**
 * The normalized customer name and aliases, and the same cut where a bank cuts names (version 2); names folded
 * with German transliteration, Cyrillic and Greek transliterated (version 3).
 */
export function customerKeys(
  name: string | null | undefined,
  aliases: readonly string[] | null | undefined,
): string[] {
  return nameLookupKeys([name, ...(aliases ?? [])])
}

/** Everything matching looks an invoice up by. */
export function invoiceKeys(invoice: {
  number: string
  customerName?: string | null
  customerAliases?: readonly string[] | null
  paymentReference?: string | null
}): InvoiceKeys {
  return {
    normalizedNumber: normalizedInvoiceNumber(invoice.number),
    customerKeys: customerKeys(invoice.customerName, invoice.customerAliases),
    matchKeys: invoiceMatchKeys(invoice),
    version: INVOICE_KEYS_VERSION,
  }
}

/** An invoice as the store writes it: the caller's fields and their keys. */
export function withKeys<T extends Parameters<typeof invoiceKeys>[0]>(invoice: T): T & { keys: InvoiceKeys } {
  return { ...invoice, keys: invoiceKeys(invoice) }
}
