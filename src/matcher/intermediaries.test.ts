import { describe, expect, it } from 'vitest'
import { CustomerDirectory } from './customer-directory.js'
import { isIntermediaryName } from './intermediaries.js'

describe('isIntermediaryName', () => {
  it('knows PSPs, payment agents and factors as banks show them', () => {
    for (const name of [
      'STRIPE PAYMENTS EUROPE LTD',
      'PayPal (Europe) S.a r.l.',
      'BILL.COM LLC',
      'TIPALTI INC',
      'CHECKOUT.COM',
      'Nordic Factoring AB',
    ])
      expect(isIntermediaryName(name), name).toBe(true)
  })

  it('does not take a word inside another for one (Wise alone is a surname)', () => {
    expect(isIntermediaryName('Stripes Textil GmbH')).toBe(false)
    expect(isIntermediaryName('John Wise')).toBe(false)
  })
})

describe('verified payers (issue 25 rule 5)', () => {
  const directory = () => {
    const customers = new CustomerDirectory()
    customers.upsertCustomer({
      id: 'acme',
      name: 'Acme Trading GmbH',
      bankAccounts: ['DE89370400440532013000'],
    })
    customers.upsertCustomer({
      id: 'img',
      name: 'IMG Maschinenbau',
      bankAccounts: ['DE75512108001245126199'],
      learnedNames: ['STRIPE PAYMENTS EUROPE LTD'],
    })
    customers.upsertCustomer({
      id: 'kg',
      name: 'Mueller KG',
      learnedAccounts: ['DE75 **** **** **** **61 99'],
    })
    return customers
  }

  it('verifies an account showing more than a tail of four characters, with a name that fits', () => {
    expect(directory().identify('ACME TRADING', 'DE89 **** **** **** **30 00')).toMatchObject({
      customers: ['c:acme'],
      verified: true,
    })
  })

  it('does not verify a masked tail of four characters: a hint by account only', () => {
    expect(directory().identify(null, 'XXXXXXXXXXXXXXXXXX3000')).toMatchObject({
      customers: ['c:acme'],
      how: 'account_tail',
      verified: false,
    })
  })

  it('does not verify an account whose shown name is someone else', () => {
    expect(directory().identify('HANSEATIC FREIGHT', 'DE89 **** **** **** **30 00')).toMatchObject({
      customers: ['c:acme'],
      verified: false,
    })
  })

  it('lets an account that paid for two customers verify neither', () => {
    expect(directory().identify(null, 'DE75 **** **** **** **61 99')).toMatchObject({
      customers: [],
      verified: false,
    })
  })

  it('never recognises an intermediary, even a name a person once taught', () => {
    expect(directory().identify('STRIPE PAYMENTS EUROPE LTD', null)).toMatchObject({
      customers: [],
      how: 'intermediary',
      verified: false,
    })
  })
})
