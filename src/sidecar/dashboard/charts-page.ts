import { Decimal } from 'decimal.js'
import { queueStats, type QueueStats } from '../queue-stats.js'
import type { SidecarContext } from '../context.js'
import { syncLags, type SyncLag } from '../sync-lag.js'
import { renderBarChart, renderRateChart } from './chart-svg.js'
import { renderDailyChart } from './daily-chart.js'
import { loadDailySeries, type DailySeries } from './daily-match-series.js'
import { html, type SafeHtml } from './html.js'

const DAYS = 30

export type ChartsData = { series: DailySeries; queues: QueueStats[]; lags: SyncLag[] }

/** oldestWaitingSeconds -1: the queue did not answer. */
const answered = (queue: QueueStats) => queue.oldestWaitingSeconds >= 0

export async function loadCharts(context: SidecarContext, currency: string | undefined): Promise<ChartsData> {
  const now = context.clock.now()
  const [series, queues, lags] = await Promise.all([
    loadDailySeries(context.store.db, { now, length: DAYS, currency }),
    // BullMQ stamps jobs with the system time (queue-stats.ts). A queue that cannot answer is left out and named.
    Promise.all(
      context.queues.map((queue) =>
        queueStats(queue, Date.now()).catch(() => ({
          name: queue.name,
          counts: {},
          oldestWaitingSeconds: -1,
        })),
      ),
    ),
    syncLags(context.store.db, now),
  ])
  return { series, queues, lags }
}

/** The share of a day's inflow amount matched in full; null on a day without inflows. */
function matchRates(series: DailySeries) {
  return series.days.map((day) => {
    const total = new Decimal(day.matched).plus(day.partial).plus(day.unmatched)
    return { day: day.day, rate: total.isZero() ? null : new Decimal(day.matched).div(total).toNumber() }
  })
}

const seconds = (value: number) =>
  value < 120
    ? `${Math.round(value)} s`
    : value < 7200
      ? `${Math.round(value / 60)} min`
      : `${(value / 3600).toFixed(1)} h`

const waiting = (queue: QueueStats) =>
  (queue.counts.waiting ?? 0) + (queue.counts.prioritized ?? 0) + (queue.counts['waiting-children'] ?? 0)

/**
 * Charts where a look beats reading: the match rate and cash received per day (one currency), queue depth and
 * oldest wait per queue, sync lag per connection. Inline SVG rendered here; the page carries no chart library.
 */
export function renderCharts(data: ChartsData): SafeHtml {
  const { series } = data
  const others = series.currencies.filter((currency) => currency !== series.currency)
  const noInflows = html`<p class="muted">No inflows in the last ${DAYS} days.</p>`
  return html`<section id="chart-match-rate">
      <h2>
        Match rate
        <small
          >share of each day's inflow amount matched in
          full${series.currency ? `, ${series.currency}` : ''}</small
        >
      </h2>
      ${series.currency ? renderRateChart(matchRates(series), 'Match rate per day') : noInflows}
    </section>
    <section id="chart-cash">
      <h2>Cash received per day <small>${series.currency ?? ''}, by how much is matched</small></h2>
      ${series.currency ? renderDailyChart(series.days, series.currency) : noInflows}
      ${
        others.length > 0 &&
        html`<p class="filters">
          ${others.map((currency) => html`<a href="/dashboard/charts?currency=${currency}">${currency}</a>`)}
        </p>`
      }
    </section>
    <section id="chart-queues">
      <h2>Queues <small>jobs waiting, and how long the oldest has waited</small></h2>
      ${renderBarChart(
        data.queues.map((queue) => ({
          label: queue.name,
          value: waiting(queue),
          text: `${waiting(queue)} waiting`,
        })),
        'Jobs waiting per queue',
      )}
      ${renderBarChart(
        data.queues.filter(answered).map((queue) => ({
          label: queue.name,
          value: queue.oldestWaitingSeconds,
          text: seconds(queue.oldestWaitingSeconds),
          color: queue.oldestWaitingSeconds > 60 ? '#d0463b' : '#e0a526',
        })),
        'Oldest wait per queue',
      )}
    </section>
    <section id="chart-sync-lag">
      <h2>Sync lag <small>time since each connection's last successful sync</small></h2>
      ${
        data.lags.length === 0
          ? html`<p class="muted">No connection has synced yet.</p>`
          : renderBarChart(
              data.lags.map((lag) => ({
                label: lag.connectionId.slice(0, 8),
                value: lag.lagSeconds ?? 0,
                text: lag.lagSeconds === null ? 'never' : seconds(lag.lagSeconds),
                color: lag.lagSeconds === null || lag.lagSeconds > 900 ? '#d0463b' : '#2e9e5b',
              })),
              'Sync lag per connection',
            )
      }
    </section>`
}
