import { describe, expect, it } from 'vitest'
import { csvField, csvRecord } from './csv-field.js'

describe('csvField (RFC 4180)', () => {
  it('leaves plain text and plain numbers, negative ones included, unchanged', () => {
    expect(csvField('INV-1001')).toBe('INV-1001')
    expect(csvField('-1250.00')).toBe('-1250.00')
    expect(csvField('+42')).toBe('+42')
    expect(csvField('a=b')).toBe('a=b')
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

describe('csvField against formula injection', () => {
  it.each([
    ['=HYPERLINK("https://evil.example","Click")', `"'=HYPERLINK(""https://evil.example"",""Click"")"`],
    ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
    ["@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', `"'\r=1+1"`],
    ['=1', "'=1"],
    ['-', "'-"],
  ])('makes %j text a spreadsheet does not evaluate', (value, written) => {
    expect(csvField(value)).toBe(written)
  })
})
