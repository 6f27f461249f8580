import { describe, expect, it } from 'vitest'
import { normalizeName } from './normalize-name.js'

describe('normalizeName', () => {
  it('ignores case, punctuation and legal-form suffixes', () => {
    expect(normalizeName('ACME, Ltd.')).toBe('acme')
    expect(normalizeName('Acme Limited')).toBe('acme')
    expect(normalizeName('Acme Holdings Co., Ltd.')).toBe('acme holdings')
    expect(normalizeName('Foo L.L.C.')).toBe('foo')
  })

  it('ignores accents and reads & as and', () => {
    expect(normalizeName('Müller & Söhne GmbH')).toBe('muller and sohne')
  })

  it('keeps a name that is only a legal form', () => {
    expect(normalizeName('Inc')).toBe('inc')
  })

  it('gives an empty name for nothing', () => {
    expect(normalizeName(null)).toBe('')
    expect(normalizeName(' - ')).toBe('')
  })
})
