import { invoiceMatchKeys, normalizedInvoiceNumber, normalizeName } from '../matcher/index.js'
import type { InvoiceKeys } from '../store/index.js'

/** Bump when any rule below changes: the sidecar re-keys stored invoices of an older version at start-up. */
export const INVOICE_KEYS_VERSION = 1

/** The normalized customer name and aliases, without empties or repeats. */
export function customerKeys(
  name: string | null | undefined,
  aliases: readonly string[] | null | undefined,
): string[] {
  const keys = new Set<string>()
  for (const value of [name, ...(aliases ?? [])]) {
    const key = normalizeName(value)
    if (key) keys.add(key)
  }
  return [...keys]
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
