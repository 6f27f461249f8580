import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { CAMT054_LIMITS, checkCamt054Size, prescanCamt054 } from './camt054-limits.js'

const fixture = readFileSync(new URL('../../fixtures/camt054/sepa-batch.xml', import.meta.url), 'utf8')

function refusal(run: () => unknown): { code: string; details: Array<{ path: string; message: string }> } {
  try {
    run()
  } catch (error) {
    return error as never
  }
  throw new Error('accepted')
}

const wrap = (inner: string) => `<Document><BkToCstmrDbtCdtNtfctn>${inner}</BkToCstmrDbtCdtNtfctn></Document>`

describe('prescanCamt054', () => {
  it('lets a real notification through', () => {
    expect(() => prescanCamt054(fixture)).not.toThrow()
  })

  it('refuses more elements than the cap, naming the limit', () => {
    const at = wrap('<a/>'.repeat(CAMT054_LIMITS.elements - 2))
    expect(() => prescanCamt054(at)).not.toThrow()
    expect(refusal(() => prescanCamt054(wrap('<a/>'.repeat(CAMT054_LIMITS.elements - 1))))).toMatchObject({
      code: 'camt054_too_complex',
      details: [
        { path: 'body', message: expect.stringContaining(`more than ${CAMT054_LIMITS.elements} elements`) },
      ],
    })
  })

  it('refuses more attributes than the cap, whether in one tag or many; = inside a value is no attribute', () => {
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="x=y"`).join('')
    expect(() => prescanCamt054(wrap(`<a${attrs(CAMT054_LIMITS.attributes)}/>`))).not.toThrow()
    for (const bomb of [
      wrap(`<a${attrs(CAMT054_LIMITS.attributes + 1)}/>`),
      wrap('<a b="1"/>'.repeat(CAMT054_LIMITS.attributes + 1)),
    ]) {
      expect(refusal(() => prescanCamt054(bomb))).toMatchObject({
        code: 'camt054_too_complex',
        details: [{ message: expect.stringContaining(`more than ${CAMT054_LIMITS.attributes} attributes`) }],
      })
    }
  })

  it('refuses nesting deeper than the cap; comments, CDATA and closed elements do not count', () => {
    const deep = (n: number) => '<a>'.repeat(n) + '</a>'.repeat(n)
    expect(() => prescanCamt054(deep(CAMT054_LIMITS.depth))).not.toThrow()
    expect(() =>
      prescanCamt054(`<!-- <a><a><a> -->${'<a></a>'.repeat(1000)}<![CDATA[${'<b>'.repeat(100)}]]>`),
    ).not.toThrow()
    expect(refusal(() => prescanCamt054(deep(CAMT054_LIMITS.depth + 1)))).toMatchObject({
      code: 'camt054_too_complex',
      details: [{ message: expect.stringContaining(`more than ${CAMT054_LIMITS.depth} deep`) }],
    })
  })

  it('ends on cut markup without looping (the parser names it)', () => {
    for (const cut of ['<a', '<a b="', '<!--', '<![CDATA[', '<?xml', '</a', '<a <b', '<'])
      expect(() => prescanCamt054(cut)).not.toThrow()
  })
})

describe('checkCamt054Size', () => {
  it('refuses a document over the byte cap, naming it; one at the cap passes', () => {
    expect(() => checkCamt054Size('x'.repeat(CAMT054_LIMITS.bytes))).not.toThrow()
    // Bytes, not characters: é is two.
    expect(refusal(() => checkCamt054Size('é'.repeat(CAMT054_LIMITS.bytes / 2 + 1)))).toMatchObject({
      code: 'camt054_too_complex',
      details: [{ path: 'body', message: expect.stringContaining(`${CAMT054_LIMITS.bytes} bytes`) }],
    })
  })
})
