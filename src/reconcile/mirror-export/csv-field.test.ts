import { describe, expect, it } from 'vitest'
import { csvField, csvRecord } from './csv-field.js'

describe('csvField (RFC 4180)', () => {
  it('leaves plain text, negative amounts and formula-like text unchanged', () => {
    expect(csvField('INV-1001')).toBe('INV-1001')
    expect(csvField('-1250.00')).toBe('-1250.00')
    expect(csvField('=SUM(A1)')).toBe('=SUM(A1)')
  })

  it('quotes a field holding a comma, a quote, CR or LF and doubles its quotes', () => {
    expect(csvField('ACME, Inc.')).toBe('"ACME, Inc."')
    expect(csvField('the "big" one')).toBe('"the ""big"" one"')
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"')
    expect(csvField('a\rb')).toBe('"a\rb"')
  })

  it('writes null as the empty field and ends a record with CRLF', () => {
    expect(csvRecord(['a', null, ''])).toBe('a,,\r\n')
  })
})
