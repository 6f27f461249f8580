import { describe, expect, it } from 'vitest'
import type { ConfigError } from '../config/index.js'
import { loadConfig } from '../config/index.js'
import { feeTolerance, toUnits, withinFeeTolerance, writeOffAccountFor } from '../matcher/index.js'
import { matchConfigOf } from './match-config.js'

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (error) {
    return (error as ConfigError).problems.join('\n')
  }
  throw new Error('expected a configuration error')
}

describe('residual configuration from the environment', () => {
  it('reads general and per-currency tolerances, the smaller of amount and percent applying', () => {
    const config = matchConfigOf(
      loadConfig({
        MATCH_FEE_TOLERANCE_AMOUNT: '30.00, JPY=3000',
        MATCH_FEE_TOLERANCE_PERCENT: '2,EUR=1.5',
        MATCH_AUTO_CONFIRM_THRESHOLD: '95',
      }),
    )
    expect(config.autoConfirmThreshold).toBe(95)
    const eur = feeTolerance(config, 'EUR')
    expect(withinFeeTolerance(eur, toUnits('15'), toUnits('1000'))).toBe(true)
    expect(withinFeeTolerance(eur, toUnits('15.01'), toUnits('1000'))).toBe(false) // 1.5 % of 1000
    const usd = feeTolerance(config, 'USD')
    expect(withinFeeTolerance(usd, toUnits('30'), toUnits('5000'))).toBe(true)
    expect(withinFeeTolerance(usd, toUnits('30.01'), toUnits('5000'))).toBe(false) // the 30.00 cap
    expect(withinFeeTolerance(feeTolerance(config, 'JPY'), toUnits('2000'), toUnits('100000'))).toBe(true)
  })

  it('books write-offs to the account of their reason, else the general one', () => {
    const config = matchConfigOf(
      loadConfig({
        MATCH_WRITE_OFF_ACCOUNT: '6800',
        MATCH_WRITE_OFF_ACCOUNTS: 'discount=4900, credit_note=4100',
      }),
    )
    expect(writeOffAccountFor(config, 'discount')).toBe('4900')
    expect(writeOffAccountFor(config, 'bank_fee')).toBe('6800')
    expect(writeOffAccountFor(matchConfigOf(loadConfig({})), 'bank_fee')).toBe('write-off')
  })

  it('names the variable and the item at fault', () => {
    expect(problemsOf({ MATCH_FEE_TOLERANCE_AMOUNT: '30,00' })).toMatch(
      /MATCH_FEE_TOLERANCE_AMOUNT "00": must be a plain decimal/,
    )
    expect(problemsOf({ MATCH_FEE_TOLERANCE_AMOUNT: 'eur=5' })).toMatch(
      /the currency must be 3 to 12 upper-case/,
    )
    expect(problemsOf({ MATCH_FEE_TOLERANCE_PERCENT: '100' })).toMatch(
      /MATCH_FEE_TOLERANCE_PERCENT "100": must be below 100/,
    )
    expect(problemsOf({ MATCH_FEE_TOLERANCE_AMOUNT: '5,EUR=1,EUR=2' })).toMatch(/EUR is given twice/)
    expect(problemsOf({ MATCH_WRITE_OFF_ACCOUNTS: 'tip=6800' })).toMatch(
      /MATCH_WRITE_OFF_ACCOUNTS "tip=6800": the reason must be one of bank_fee/,
    )
    expect(problemsOf({ MATCH_AUTO_CONFIRM_THRESHOLD: '101' })).toMatch(/MATCH_AUTO_CONFIRM_THRESHOLD/)
  })
})
