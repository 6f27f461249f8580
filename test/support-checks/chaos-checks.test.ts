import { describe, expect, it } from 'vitest'
import { unexplainedRepeats, type SlackNotice } from '../support/chaos/chaos-checks.js'

const notice = (at: number, answerLost = false): SlackNotice => ({
  id: 'incident-1:alert',
  incidentId: 'incident-1',
  type: 'alert',
  connectionId: 'conn-1',
  at,
  answerLost,
})

describe('a repeated alert notice in the chaos check', () => {
  it('is explained by a worker death between a send and its record, even one stamped before the receipt', () => {
    expect(unexplainedRepeats([notice(20_000), notice(30_000)], [15_000])).toEqual([])
    expect(unexplainedRepeats([notice(20_000), notice(30_000)], [25_000])).toEqual([])
  })

  it('is explained by a first receipt whose answer never reached its sender', () => {
    expect(unexplainedRepeats([notice(20_000, true), notice(30_000)], [])).toEqual([])
  })

  it('is a violation with no death in reach and every answer received, naming the times', () => {
    const violations = unexplainedRepeats([notice(20_000), notice(30_000)], [5_000, 40_000])
    expect(violations).toHaveLength(1)
    expect(violations[0]).toContain('reached Slack 2 times')
    expect(violations[0]).toContain('1970-01-01T00:00:20.000Z')
  })

  it('allows one repeat per death, not more', () => {
    expect(unexplainedRepeats([notice(20_000), notice(25_000), notice(30_000)], [22_000])).toHaveLength(1)
  })
})
