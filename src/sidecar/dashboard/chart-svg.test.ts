import { describe, expect, it } from 'vitest'
import { renderBarChart, renderRateChart } from './chart-svg.js'

describe('inline SVG charts', () => {
  it('draws one point per day with a value and breaks the line over a day without one', () => {
    const svg = renderRateChart(
      [
        { day: '2026-03-01', rate: 1 },
        { day: '2026-03-02', rate: 0.5 },
        { day: '2026-03-03', rate: null },
        { day: '2026-03-04', rate: 0 },
      ],
      'Match rate',
    ).value
    expect(svg.match(/<circle/g)).toHaveLength(3)
    expect(svg.match(/<polyline/g)).toHaveLength(2)
    expect(svg).toContain('data-rate="0.5000"')
  })

  it('scales bars to the largest value and escapes labels', () => {
    const svg = renderBarChart(
      [
        { label: 'webhook-events', value: 10, text: '10 waiting' },
        { label: '<b>x</b>', value: 5, text: '5 waiting' },
      ],
      'Queues',
    ).value
    const widths = [...svg.matchAll(/<rect[^>]*\swidth="([\d.]+)"/g)].map((m) => Number(m[1]))
    expect(widths).toEqual([500, 250])
    expect(svg).not.toContain('<b>x</b>')
  })
})
