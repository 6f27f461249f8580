import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  finnishCheckDigit,
  isValidFinnish,
  isValidKid,
  isValidOgm,
  isValidQrr,
  isValidRf,
  luhnCheckDigit,
  mod11CheckDigit,
  recursiveMod10CheckDigit,
  validSchemes,
} from './check-digits.js'

describe('published examples', () => {
  it('ISO 11649: RF18539007547034 (the standard’s example) is valid, RF19… is not', () => {
    expect(isValidRf('RF18539007547034')).toBe(true)
    expect(isValidRf('RF19539007547034')).toBe(false)
    expect(isValidRf('RF18000000000539007547034')).toBe(true)
  })

  it('Luhn: 7992739871 has check digit 3 (79927398713), 123456789 has 7', () => {
    expect(luhnCheckDigit('7992739871')).toBe(3)
    expect(luhnCheckDigit('123456789')).toBe(7)
    expect(isValidKid('79927398713')).toBe(true)
  })

  it('mod 11 (Brønnøysund’s worked example): 12345678 has check digit 5', () => {
    expect(mod11CheckDigit('12345678')).toBe(5)
    expect(isValidKid('123456785')).toBe(true)
  })

  it('mod 11 writes a check value of 10 as “-”', () => {
    expect(mod11CheckDigit('6')).toBe(-1)
    expect(isValidKid('6-')).toBe(true)
    expect(isValidKid('60')).toBe(false)
  })

  it('Finnish reference: 12345 → 123453, 123456 → 1234561, 123456712345678 → …84', () => {
    expect(finnishCheckDigit('12345')).toBe(3)
    expect(isValidFinnish('1234561')).toBe(true)
    expect(isValidFinnish('1234567123456784')).toBe(true)
    expect(isValidFinnish('1234562')).toBe(false)
  })

  it('Swiss QR reference: 21 00000 00003 13947 14300 09017 (SIX example) is valid', () => {
    expect(isValidQrr('210000000003139471430009017')).toBe(true)
    expect(recursiveMod10CheckDigit('21000000000313947143000901')).toBe(7)
    expect(isValidQrr('210000000003139471430009018')).toBe(false)
  })

  it('Belgian OGM: +++123/4567/89002+++ (1234567890 mod 97 = 2) is valid; a remainder of 0 is written 97', () => {
    expect(isValidOgm('123456789002')).toBe(true)
    expect(isValidOgm('123456789003')).toBe(false)
    expect(isValidOgm('000000009797')).toBe(true)
  })
})

describe('every single-digit typo is caught', () => {
  const digit = fc.integer({ min: 0, max: 9 })
  const body = (min: number, max: number) =>
    fc.array(digit, { minLength: min, maxLength: max }).map((ds) => ds.join(''))
  const typo = (text: string, at: number, by: number) =>
    `${text.slice(0, at)}${(Number(text[at]) + by) % 10}${text.slice(at + 1)}`

  it('Luhn, Finnish, recursive mod 10 and OGM detect any one changed digit', () => {
    fc.assert(
      fc.property(body(3, 18), fc.nat(), fc.integer({ min: 1, max: 9 }), (base, where, by) => {
        const luhn = `${base}${luhnCheckDigit(base)}`
        const finnish = `${base}${finnishCheckDigit(base)}`
        const at = where % luhn.length
        expect(isValidKid(luhn)).toBe(true)
        expect(luhnCheckDigit(typo(luhn, at, by).slice(0, -1))).not.toBe(Number(typo(luhn, at, by).at(-1)))
        if (finnish.length >= 4) {
          expect(isValidFinnish(finnish)).toBe(true)
          // Weights 7, 3 and 1 are all prime to 10, so no change of one digit keeps the sum.
          expect(isValidFinnish(typo(finnish, at, by))).toBe(false)
        }
      }),
    )
    fc.assert(
      fc.property(body(26, 26), fc.nat(), fc.integer({ min: 1, max: 9 }), (base, where, by) => {
        const qrr = `${base}${recursiveMod10CheckDigit(base)}`
        expect(isValidQrr(qrr)).toBe(true)
        expect(isValidQrr(typo(qrr, where % 27, by))).toBe(false)
      }),
    )
    fc.assert(
      fc.property(body(10, 10), fc.nat(), fc.integer({ min: 1, max: 9 }), (base, where, by) => {
        const check = Number(BigInt(base) % 97n) || 97
        const ogm = `${base}${String(check).padStart(2, '0')}`
        expect(isValidOgm(ogm)).toBe(true)
        expect(isValidOgm(typo(ogm, where % 12, by))).toBe(false)
      }),
    )
  })
})

describe('validSchemes', () => {
  it('names the schemes a compact reference passes', () => {
    expect(validSchemes('RF18539007547034')).toEqual(['rf'])
    expect(validSchemes('210000000003139471430009017')).toContain('ch_qrr')
    expect(validSchemes('123456789002')).toContain('be_ogm')
    expect(validSchemes('RF19539007547034')).toEqual([])
  })
})
