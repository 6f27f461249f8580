import { describe, expect, it } from 'vitest'
import { accountMatches, compactAccount, parseMaskedAccount } from './bank-account.js'

const IBAN = compactAccount('DE89 3704 0044 0532 0130 00')

describe('masked counterparty accounts', () => {
  it.each([
    ['DE89 **** **** **** **30 00', true],
    ['DE89370400440532013000', true],
    ['****3000', true],
    ['XXXXXXXXXXXXXXXXXX3000', true],
    ['DE88 **** 3000', false],
    ['****3001', false],
    ['DE89370400440532013001', false],
  ])('%s against DE89 3704 0044 0532 0130 00: %s', (shown, expected) => {
    const parsed = parseMaskedAccount(shown)
    expect(parsed && accountMatches(IBAN, parsed)).toBe(expected)
  })

  it('refuses a masked account showing fewer than four characters at the end', () => {
    expect(parseMaskedAccount('DE89 ****** 30')).toBeNull()
    expect(parseMaskedAccount('')).toBeNull()
  })

  it('compares US account numbers by their visible last digits', () => {
    const parsed = parseMaskedAccount('xxxxx6789')!
    expect(accountMatches(compactAccount('000123456789'), parsed)).toBe(true)
    expect(accountMatches(compactAccount('000123456788'), parsed)).toBe(false)
  })
})
