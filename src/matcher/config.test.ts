import { describe, expect, it } from 'vitest'
import { DEFAULT_MATCH_CONFIG, feeTolerance, matchConfig, withinFeeTolerance } from './config.js'
import { toUnits } from './money.js'

describe('matchConfig', () => {
  it('defaults to no fee tolerance, no auto-confirmation and a three-day leg window', () => {
    expect(matchConfig()).toEqual(DEFAULT_MATCH_CONFIG)
    expect(DEFAULT_MATCH_CONFIG.autoConfirmThreshold).toBeNull()
    expect(DEFAULT_MATCH_CONFIG.transferLegWindowSeconds).toBe(259_200)
  })

  it('keeps defaults for options given as undefined', () => {
    expect(matchConfig({ maxSuggestionSetSize: undefined }).maxSuggestionSetSize).toBe(5)
  })

  it('applies the absolute and percent tolerances exactly, both when both are set', () => {
    const both = feeTolerance(matchConfig({ feeToleranceAbsolute: '2', feeTolerancePercent: '0.1' }))
    expect(withinFeeTolerance(both, toUnits('1'), toUnits('1000'))).toBe(true)
    expect(withinFeeTolerance(both, toUnits('1.01'), toUnits('1000'))).toBe(false)
    const percent = feeTolerance(matchConfig({ feeTolerancePercent: '0.1' }))
    expect(withinFeeTolerance(percent, toUnits('1.5'), toUnits('1500'))).toBe(true)
    expect(withinFeeTolerance(percent, toUnits('1.500001'), toUnits('1500'))).toBe(false)
    expect(withinFeeTolerance(feeTolerance(matchConfig()), toUnits('0.01'), toUnits('1000'))).toBe(false)
  })
})
