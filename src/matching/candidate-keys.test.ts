import { describe, expect, it } from 'vitest'
import { candidateKeys, numberKey, payerKey } from './candidate-keys.js'

describe('candidateKeys', () => {
  it('holds the number key of every invoice number a reference names, however mangled', () => {
    const keys = candidateKeys({
      paymentReference: 'inv 0001001 and INV1002',
      customerReference: null,
      description: null,
      rawDescription: null,
    })
    expect(keys).toContain(numberKey('INV-1001'))
    expect(keys).toContain(numberKey('INV-1002'))
  })

  it('holds the body of an RF reference as one key', () => {
    const keys = candidateKeys({
      paymentReference: 'RF18539007547034',
      customerReference: null,
      description: null,
      rawDescription: null,
    })
    expect(keys).toContain(numberKey('539007547034'))
  })

  it('reads every reference field', () => {
    const keys = candidateKeys({
      paymentReference: null,
      customerReference: 'A-1',
      description: 'B 2',
      rawDescription: 'C3',
    })
    expect(keys).toEqual(expect.arrayContaining(['A 1', 'B 2', 'C 3']))
  })

  it('holds what a labelled KID with a mistaken `-` check digit may have meant, as invoices store it', () => {
    const keys = (paymentReference: string) =>
      candidateKeys({ paymentReference, customerReference: null, description: null, rawDescription: null })
    // 1203458- is issued (stored as 1203458): a digit written for its `-`.
    expect(keys('KID 12034587')).toContain('1203458')
    // 1203461 is issued: a `-` written for its check digit, and a wrong body digit before a `-`.
    expect(keys('KID 120346-')).toContain('1203461')
    expect(keys('KID 1203468-')).toContain('1203458')
  })

  it('never joins tokens of two fields', () => {
    const keys = candidateKeys({
      paymentReference: 'INV',
      customerReference: '1001',
      description: null,
      rawDescription: null,
    })
    expect(keys).not.toContain('INV 1001')
  })
})

describe('payerKey', () => {
  it('normalizes the counterparty like customer names, null when nothing is left', () => {
    expect(payerKey('ACME LIMITED')).toBe(payerKey('Acme Ltd'))
    expect(payerKey('  ')).toBeNull()
  })
})
