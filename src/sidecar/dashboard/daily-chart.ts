import { Decimal } from 'decimal.js'
import { html, type SafeHtml } from './html.js'

/** One day of inflows in one currency, split by how much of them is allocated (decimal strings). */
export type DailyAmounts = { day: string; matched: string; partial: string; unmatched: string }

const WIDTH = 720
const HEIGHT = 220
const LEFT = 64
const RIGHT = 8
const TOP = 12
const BOTTOM = 30

const SERIES = [
  { key: 'matched', label: 'matched', color: '#2e9e5b' },
  { key: 'partial', label: 'partially matched', color: '#e0a526' },
  { key: 'unmatched', label: 'unmatched', color: '#d0463b' },
] as const

/** The smallest 1, 2, 2.5 or 5 × 10^n at or above `value` (the top of the axis). */
export function niceCeiling(value: Decimal): Decimal {
  if (value.lte(0)) return new Decimal(1)
  const power = new Decimal(10).pow(value.abs().log(10).floor())
  for (const step of [1, 2, 2.5, 5, 10]) {
    const candidate = power.times(step)
    if (candidate.gte(value)) return candidate
  }
  return power.times(10)
}

/** "1234567.5" → "1,234,567.5", for axis labels and tooltips. */
export function groupDigits(amount: string): string {
  const [whole, fraction] = amount.split('.')
  const sign = whole!.startsWith('-') ? '-' : ''
  const digits = whole!.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${sign}${digits}${fraction ? `.${fraction}` : ''}`
}

const y = (amount: Decimal, top: Decimal) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - amount.div(top).toNumber())

/**
 * Stacked bars of matched, partially matched and unmatched inflow amounts per day, as inline SVG (no script, no
 * library). Amounts stay decimal; only pixel positions are floating point.
 */
export function renderDailyChart(days: readonly DailyAmounts[], currency: string): SafeHtml {
  const totals = days.map((day) => SERIES.reduce((sum, s) => sum.plus(day[s.key]), new Decimal(0)))
  const top = niceCeiling(Decimal.max(0, ...totals))
  const slot = (WIDTH - LEFT - RIGHT) / Math.max(1, days.length)
  const barWidth = Math.max(4, slot * 0.7)
  const gridlines = [new Decimal(0), top.div(2), top].map(
    (value) =>
      html`<line
          x1="${LEFT}"
          x2="${WIDTH - RIGHT}"
          y1="${y(value, top).toFixed(1)}"
          y2="${y(value, top).toFixed(1)}"
          stroke="#e6e9ef"
        />
        <text x="${LEFT - 6}" y="${(y(value, top) + 4).toFixed(1)}" text-anchor="end"
          >${groupDigits(value.toFixed())}</text
        >`,
  )
  const bars = days.map((day, index) => {
    const x = LEFT + slot * index + (slot - barWidth) / 2
    let base = new Decimal(0)
    const stack = SERIES.map((series) => {
      const amount = new Decimal(day[series.key])
      const from = y(base, top)
      base = base.plus(amount)
      if (amount.isZero()) return ''
      const to = y(base, top)
      return html`<rect
        x="${x.toFixed(1)}"
        y="${to.toFixed(1)}"
        width="${barWidth.toFixed(1)}"
        height="${(from - to).toFixed(1)}"
        fill="${series.color}"
        ><title>${day.day} ${series.label}: ${groupDigits(day[series.key])} ${currency}</title></rect
      >`
    })
    const label =
      days.length <= 16 || index % Math.ceil(days.length / 16) === 0
        ? html`<text x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - BOTTOM + 16}" text-anchor="middle"
            >${day.day.slice(5)}</text
          >`
        : ''
    return html`<g data-day="${day.day}">${stack}${label}</g>`
  })
  return html`<svg
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="100%"
      role="img"
      aria-label="Matched and unmatched inflows per day, ${currency}"
    >
      ${gridlines}
      <line
        x1="${LEFT}"
        x2="${WIDTH - RIGHT}"
        y1="${HEIGHT - BOTTOM}"
        y2="${HEIGHT - BOTTOM}"
        stroke="#8a94a6"
      />
      ${bars}
    </svg>
    <div class="legend">
      ${SERIES.map((s) => html`<span><span class="swatch ${s.key}"></span>${s.label}</span>`)}<span
        class="muted"
        >amounts in ${currency}</span
      >
    </div>`
}
