import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bodyText, jsonText } from './json-text.js'

/** What JSON.parse makes of a text: the value, or that it threw. */
function parsed(text: string): { value: unknown } | 'syntax error' {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return 'syntax error'
  }
}

/** The property: jsonText's text parses exactly as the body's decoded text does. */
function expectSameParse(bytes: Buffer): void {
  expect(parsed(jsonText(bytes))).toStrictEqual(parsed(new TextDecoder().decode(bytes)))
}

const utf8 = (text: string) => Buffer.from(text, 'utf8')

describe('jsonText', () => {
  it('reads a body as Response#text() does', async () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0xff])
    expect(bodyText(bytes)).toBe(await new Response(bytes).text())
  })

  it('keeps an ASCII body as it is', () => {
    const body = '{"a":"b \\"c\\" \\\\ \\u00e9","n":[1,2.5,null,true]}'
    expect(jsonText(Buffer.from(body))).toBe(body)
  })

  it('escapes non-ASCII characters, so the text stays one-byte and parses to the same strings', () => {
    const text = jsonText(utf8('{"counterpartyAccountMasked":"••4321","é":"日本 😀 café"}'))
    expect(text).toBe(
      '{"counterpartyAccountMasked":"\\u2022\\u20224321","\\u00e9":"\\u65e5\\u672c \\ud83d\\ude00 caf\\u00e9"}',
    )
    expect(JSON.parse(text)).toStrictEqual({ counterpartyAccountMasked: '••4321', é: '日本 😀 café' })
  })

  it('finds non-ASCII bytes wherever the body starts in its memory (it reads four bytes a step)', () => {
    const body = utf8('{"a":"x•yz","b":"é","c":"abcdefgh😀"}')
    for (let offset = 0; offset < 8; offset++) {
      const bytes = Buffer.alloc(body.length + offset)
      body.copy(bytes, offset)
      expect(JSON.parse(jsonText(bytes.subarray(offset)))).toStrictEqual(JSON.parse(body.toString()))
    }
  })

  it.each([
    ['raw and escaped Latin-1 side by side', '{"a":"é\\u00e9"}'],
    ['an escaped backslash before a non-ASCII character', '["\\\\•"]'],
    ['a backslash escaping a non-ASCII character (not JSON)', '["\\•"]'],
    ['a \\u escape cut short by a non-ASCII character (not JSON)', '["\\u00•"]'],
    ['a non-ASCII character outside a string (not JSON)', '[1,•]'],
    ['a non-breaking space as whitespace (not JSON)', '[1,\u00a02]'],
    ['an empty body', ''],
  ])('parses %s as the decoded body does', (_name, body) => {
    expectSameParse(utf8(body))
  })

  it.each([
    ['a BOM', [0xef, 0xbb, 0xbf, ...utf8('["•"]')]],
    ['only a BOM', [0xef, 0xbb, 0xbf]],
    ['a byte that is never UTF-8', [...utf8('["a'), 0xff, ...utf8('"]')]],
    ['a truncated sequence', [...utf8('["a'), 0xe2, 0x80, ...utf8('"]')]],
    ['an encoded surrogate', [...utf8('["'), 0xed, 0xa0, 0x80, ...utf8('"]')]],
    ['an overlong slash', [...utf8('["'), 0xc0, 0xaf, ...utf8('"]')]],
  ])('decodes a body with %s as Response#text() does', (_name, bytes) => {
    const body = Buffer.from(bytes)
    expect(jsonText(body)).toBe(new TextDecoder().decode(body))
    expectSameParse(body)
  })

  it('parses any JSON value with any characters as the decoded body does', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        const json = JSON.stringify(value)
        expectSameParse(utf8(json))
        expect(JSON.parse(jsonText(utf8(json)))).toStrictEqual(JSON.parse(json))
      }),
      { numRuns: 500 },
    )
  })

  it('parses any mix of JSON punctuation, escapes, non-ASCII and malformed bytes as the decoded body does', () => {
    const pieces = [
      '"',
      '\\',
      '\\u',
      '00e9',
      'é',
      '•',
      '😀',
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      '1',
      'a',
      ' ',
      '\n',
      'null',
    ].map(utf8)
    const bytes = [[0xff], [0xe2, 0x80], [0xef, 0xbb, 0xbf], [0xed, 0xa0, 0x80], [0xc3]].map((b) =>
      Buffer.from(b),
    )
    const piece = fc.constantFrom(...pieces, ...bytes)
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (parts) => expectSameParse(Buffer.concat(parts))),
      { numRuns: 3000 },
    )
    // Inside a string, where most of them are valid JSON.
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) =>
        expectSameParse(Buffer.concat([utf8('{"k":["'), ...parts, utf8('"]}')])),
      ),
      { numRuns: 3000 },
    )
  })
})
