import { describe, expect, it } from 'vitest'
import { decodeInvoiceCursor, encodeInvoiceCursor, invoiceListFingerprint } from './invoice-cursor.js'

describe('invoice list cursors', () => {
  const fingerprint = invoiceListFingerprint({ status: 'open', customer: 'Acme' })

  it('give back the last id of the page for the same filters', () => {
    expect(decodeInvoiceCursor(encodeInvoiceCursor('inv_42', fingerprint), fingerprint)).toBe('inv_42')
  })

  it('are refused with other filters', () => {
    const other = invoiceListFingerprint({ status: 'paid', customer: 'Acme' })
    expect(() => decodeInvoiceCursor(encodeInvoiceCursor('inv_42', fingerprint), other)).toThrow(
      expect.objectContaining({
        code: 'invalid_cursor',
        kind: 'invalid',
        message: expect.stringMatching(/other filters/),
      }),
    )
  })

  it.each([
    'garbage',
    'ic_',
    'ic_bm90IGpzb24',
    `ic_${Buffer.from('{"k":"mirror","a":"x","q":"y"}').toString('base64url')}`,
  ])('are refused when malformed: %s', (raw) => {
    expect(() => decodeInvoiceCursor(raw, fingerprint)).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    )
  })
})
