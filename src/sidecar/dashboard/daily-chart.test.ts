import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { groupDigits, niceCeiling, renderDailyChart } from './daily-chart.js'

describe('niceCeiling', () => {
  it('rounds the axis top up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceCeiling(new Decimal('0')).toFixed()).toBe('1')
    expect(niceCeiling(new Decimal('0.3')).toFixed()).toBe('0.5')
    expect(niceCeiling(new Decimal('1')).toFixed()).toBe('1')
    expect(niceCeiling(new Decimal('1.01')).toFixed()).toBe('2')
    expect(niceCeiling(new Decimal('2.2')).toFixed()).toBe('2.5')
    expect(niceCeiling(new Decimal('57342.19')).toFixed()).toBe('100000')
    expect(niceCeiling(new Decimal('41000')).toFixed()).toBe('50000')
  })
})

describe('groupDigits', () => {
  it('groups thousands and keeps the fraction exactly', () => {
    expect(groupDigits('1234567.505')).toBe('1,234,567.505')
    expect(groupDigits('-1000')).toBe('-1,000')
    expect(groupDigits('999')).toBe('999')
  })
})

describe('renderDailyChart', () => {
  const days = [
    { day: '2026-03-01', matched: '100.10', partial: '0', unmatched: '50' },
    { day: '2026-03-02', matched: '0', partial: '0', unmatched: '0' },
    { day: '2026-03-03', matched: '0', partial: '25.5', unmatched: '74.5' },
  ]

  it('draws one stacked bar per day with the exact amounts in its tooltips', () => {
    const svg = renderDailyChart(days, 'EUR').value
    expect(svg.match(/<g data-day=/g)).toHaveLength(3)
    expect(svg.match(/<rect\s/g)).toHaveLength(4)
    expect(svg).toContain('<title>2026-03-01 matched: 100.10 EUR</title>')
    expect(svg).toContain('<title>2026-03-03 partially matched: 25.5 EUR</title>')
    expect(svg).toMatch(/>03-02<\/text\s*>/)
  })

  it('scales the tallest day to at most the axis top', () => {
    const svg = renderDailyChart(days, 'EUR').value
    const heights = [...svg.matchAll(/height="([\d.]+)"/g)].map((m) => Number(m[1]))
    const plot = 220 - 12 - 30
    // Day one totals 150.10 of an axis top of 200.
    expect(heights[0]! + heights[1]!).toBeCloseTo((plot * 150.1) / 200, 0)
    expect(svg).toMatch(/>200<\/text\s*>/)
  })

  it('escapes the currency label', () => {
    expect(renderDailyChart(days, '<b>').value).not.toContain('<b>')
  })
})
