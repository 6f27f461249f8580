import { html, type SafeHtml } from './html.js'

const WIDTH = 720
const LEFT = 150
const RIGHT = 70

/**
 * Horizontal bars, one per label, as inline SVG (no script, no library: the page's CSP allows neither). The
 * values are counts and durations, not money, so floating point is fine here.
 */
export function renderBarChart(
  bars: ReadonlyArray<{ label: string; value: number; text: string; color?: string }>,
  title: string,
): SafeHtml {
  const max = Math.max(1, ...bars.map((bar) => bar.value))
  const row = 24
  const height = Math.max(1, bars.length) * row + 8
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${title}">
    ${bars.map((bar, i) => {
      const width = ((WIDTH - LEFT - RIGHT) * bar.value) / max
      const y = 4 + i * row
      return html`<g data-label="${bar.label}" data-value="${String(bar.value)}">
        <text x="${LEFT - 8}" y="${y + 15}" text-anchor="end">${bar.label}</text>
        <rect
          x="${LEFT}"
          y="${y + 3}"
          width="${Math.max(1, width).toFixed(1)}"
          height="${row - 8}"
          fill="${bar.color ?? '#3b6fd8'}"
          ><title>${bar.label}: ${bar.text}</title></rect
        >
        <text x="${(LEFT + Math.max(1, width) + 6).toFixed(1)}" y="${y + 15}">${bar.text}</text>
      </g>`
    })}
  </svg>`
}

/**
 * A line over days (0–100 %), gaps where a day has no value, as inline SVG: the match rate over time.
 */
export function renderRateChart(
  points: ReadonlyArray<{ day: string; rate: number | null }>,
  title: string,
): SafeHtml {
  const height = 180
  const top = 10
  const bottom = 26
  const left = 44
  const step = (WIDTH - left - 8) / Math.max(1, points.length - 1)
  const yOf = (rate: number) => top + (height - top - bottom) * (1 - rate)
  const segments: string[][] = [[]]
  points.forEach((point, i) => {
    if (point.rate === null) segments.push([])
    else segments.at(-1)!.push(`${(left + i * step).toFixed(1)},${yOf(point.rate).toFixed(1)}`)
  })
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="${title}">
    ${[0, 0.5, 1].map(
      (rate) =>
        html`<line x1="${left}" x2="${WIDTH - 8}" y1="${yOf(rate)}" y2="${yOf(rate)}" stroke="#e6e9ef" />
          <text x="${left - 6}" y="${yOf(rate) + 4}" text-anchor="end">${rate * 100} %</text>`,
    )}
    ${segments
      .filter((segment) => segment.length > 0)
      .map(
        (segment) =>
          html`<polyline points="${segment.join(' ')}" fill="none" stroke="#2e9e5b" stroke-width="2" />`,
      )}
    ${points.map((point, i) =>
      point.rate === null
        ? html``
        : html`<circle
            cx="${(left + i * step).toFixed(1)}"
            cy="${yOf(point.rate).toFixed(1)}"
            r="3"
            fill="#2e9e5b"
            data-day="${point.day}"
            data-rate="${point.rate.toFixed(4)}"
            ><title>${point.day}: ${(point.rate * 100).toFixed(1)} %</title></circle
          >`,
    )}
    <text x="${left}" y="${height - 6}">${points[0]?.day ?? ''}</text>
    <text x="${WIDTH - 8}" y="${height - 6}" text-anchor="end">${points.at(-1)?.day ?? ''}</text>
  </svg>`
}
