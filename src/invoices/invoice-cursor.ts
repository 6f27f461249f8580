import { createHash } from 'node:crypto'
import { InvoiceError } from './invoice-error.js'

/**
 * Opaque keyset cursors of the invoice list: the last id of the page plus a fingerprint of the filters, so a
 * cursor presented with other filters is refused instead of silently skipping invoices.
 */
type Payload = { k: 'invoices'; a: string; q: string }

const PREFIX = 'ic_'

export function invoiceListFingerprint(filters: { status?: string; customer?: string }): string {
  const canonical = `invoices&status=${filters.status ?? ''}&customer=${filters.customer ?? ''}`
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
}

export function encodeInvoiceCursor(afterId: string, fingerprint: string): string {
  const payload: Payload = { k: 'invoices', a: afterId, q: fingerprint }
  return `${PREFIX}${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
}

function invalidCursor(message: string): InvoiceError {
  return new InvoiceError(400, 'invalid_cursor', `cursor ${message}`, [{ path: 'cursor', message }])
}

/** @throws InvoiceError invalid_cursor when malformed or made for other filters */
export function decodeInvoiceCursor(raw: string, fingerprint: string): string {
  let payload: Partial<Payload> | undefined
  try {
    payload = raw.startsWith(PREFIX)
      ? (JSON.parse(Buffer.from(raw.slice(PREFIX.length), 'base64url').toString('utf8')) as Partial<Payload>)
      : undefined
  } catch {
    payload = undefined
  }
  if (payload?.k !== 'invoices' || typeof payload.a !== 'string' || payload.a.length === 0) {
    throw invalidCursor('is malformed; pass pagination.nextCursor exactly as returned.')
  }
  if (payload.q !== fingerprint) {
    throw invalidCursor('was issued for other filters; keep status and customer the same while paging.')
  }
  return payload.a
}
