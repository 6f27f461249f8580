import { createListCursorCodec, listCursorMessage, listFingerprint } from '../list-cursor/index.js'
import { InvoiceError } from './invoice-error.js'

/** Keyset cursors of the invoice list: the last id of the page, bound to the status and customer filters. */
const invoiceCursors = createListCursorCodec('invoices', 'ic_', (id) => id.length > 0)

export function invoiceListFingerprint(filters: { status?: string; customer?: string }): string {
  return listFingerprint('invoices', filters)
}

export const encodeInvoiceCursor = invoiceCursors.encode

/** @throws InvoiceError invalid_cursor when malformed or made for other filters */
export function decodeInvoiceCursor(raw: string, fingerprint: string): string {
  const decoded = invoiceCursors.decode(raw, fingerprint)
  if (decoded.ok) return decoded.after
  const message = listCursorMessage(decoded.problem, 'status and customer')
  throw new InvoiceError('invalid', 'invalid_cursor', `cursor ${message}`, [{ path: 'cursor', message }])
}
