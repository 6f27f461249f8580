import type { OpenIncident } from '../../alerts/index.js'
import { matchReport, type MatchReport } from '../../closing/index.js'
import {
  getConnectionHealth,
  listAlertNotices,
  listMirroredConnections,
  type MirroredConnection,
  type NoticeFeedItem,
} from '../../store/index.js'
import { queueStats, type QueueStats } from '../queue-stats.js'
import type { SidecarContext } from '../context.js'
import { syncLags, type SyncLag } from '../sync-lag.js'
import { renderDailyChart } from './daily-chart.js'
import { loadDailySeries, type DailySeries } from './daily-match-series.js'
import { badge, colorOf, money, safeHref, shortId, when } from './format.js'
import { html, type SafeHtml } from './html.js'

const CHART_DAYS = 14
const FEED_LENGTH = 15

export type OverviewData = {
  now: Date
  connections: Array<{
    row: MirroredConnection
    incident: OpenIncident | null
    lag: SyncLag | undefined
  }>
  report: MatchReport
  openExceptions: Array<{ type: string; count: number }>
  chart: DailySeries
  alerts: NoticeFeedItem[]
  queues: Array<QueueStats | { name: string; error: string }>
}

export async function loadOverview(context: SidecarContext, currency?: string): Promise<OverviewData> {
  const { db } = context.store
  const now = context.clock.now()
  const [rows, lags, report, openExceptions, chart, alerts, queues] = await Promise.all([
    listMirroredConnections(db),
    syncLags(db, now),
    matchReport(db, { asOf: now }),
    db
      .selectFrom('match_exceptions')
      .select((eb) => ['type', eb.fn.countAll<string>().as('count')])
      .where('resolved_at', 'is', null)
      .groupBy('type')
      .orderBy('type')
      .execute(),
    loadDailySeries(db, { now, length: CHART_DAYS, currency }),
    listAlertNotices(db, {}, null, FEED_LENGTH),
    Promise.all(
      context.queues.map((queue) =>
        // BullMQ stamps jobs with the system time, not the sandbox's virtual clock.
        queueStats(queue, Date.now()).catch((error: Error) => ({ name: queue.name, error: error.message })),
      ),
    ),
  ])
  const health = await getConnectionHealth(
    db,
    rows.map((row) => row.id),
  )
  const lagOf = new Map(lags.map((lag) => [lag.connectionId, lag]))
  return {
    now,
    // The row's status is the one connection health settled on (written together), so it sits beside its incident.
    connections: rows.map((row) => ({
      row,
      incident: health.get(row.id)?.incident ?? null,
      lag: lagOf.get(row.id),
    })),
    report,
    openExceptions: openExceptions.map((row) => ({ type: row.type, count: Number(row.count) })),
    chart,
    alerts,
    queues,
  }
}

function amounts(line: { amounts: Record<string, string> }): string {
  const entries = Object.entries(line.amounts)
  return entries.length === 0 ? '0' : entries.map(([currency, amount]) => money(amount, currency)).join(' · ')
}

function stats(data: OverviewData): SafeHtml {
  const { report } = data
  const exceptions = data.openExceptions.reduce((sum, row) => sum + row.count, 0)
  const suggestions = data.openExceptions.find((row) => row.type === 'suggested_match')?.count ?? 0
  const incidents = data.connections.filter((c) => c.incident).length
  const open = report.openReceivables.reduce((sum, bucket) => sum + bucket.count, 0)
  return html`<div class="stats">
    <div class="stat">
      <small>Match rate</small
      ><b id="match-rate">${report.matchRate === null ? '–' : `${(report.matchRate * 100).toFixed(1)} %`}</b
      ><small>${report.matched.count} of ${report.inflows.count} inflows</small>
    </div>
    <div class="stat">
      <small>Unmatched inflows</small><b>${report.unmatched.count}</b
      ><small>${amounts(report.unmatched)}</small>
    </div>
    <div class="stat">
      <small>Open exceptions</small><b><a href="/dashboard/exceptions">${exceptions}</a></b
      ><small>${suggestions} suggested matches</small>
    </div>
    <div class="stat">
      <small>Open invoices</small><b><a href="/dashboard/invoices?status=open">${open}</a></b
      ><small
        >${report.openReceivables.filter((b) => b.bucket !== 'current' && b.count > 0).reduce((sum, b) => sum + b.count, 0)}
        overdue</small
      >
    </div>
    <div class="stat${incidents > 0 ? ' alarm' : ''}">
      <small>Open incidents</small><b>${incidents}</b
      ><small
        >${data.connections.length} ${data.connections.length === 1 ? 'connection' : 'connections'}</small
      >
    </div>
  </div>`
}

function portal(row: MirroredConnection, status: string): SafeHtml | '' {
  const href = safeHref(row.portal_url)
  return href && status !== 'active' ? html`<a href="${href}" rel="noreferrer">Bank portal</a> ` : ''
}

function connections(data: OverviewData, canAct: boolean): SafeHtml {
  if (data.connections.length === 0) {
    return html`<p class="muted">
      No connections yet. Connect a bank with <code>bankrec connect</code> or POST /api/connections.
    </p>`
  }
  return html`<table id="connections">
    <thead>
      <tr>
        <th>Connection</th>
        <th>Status</th>
        <th>Last sync (bank)</th>
        <th>Mirror synced</th>
        <th>Open incident</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${data.connections.map(({ row, incident, lag }) => {
        const { status, error_code: errorCode, error_message: errorMessage } = row
        return html`<tr data-connection-id="${row.id}" data-status="${status}">
          <td>${row.institution_name ?? row.institution_id ?? ''}<br />${shortId(row.id)}</td>
          <td>
            ${badge(status)}${(errorCode || errorMessage) && html`<br /><small>${errorCode ?? ''} ${errorMessage ?? ''}</small>`}
          </td>
          <td>${when(row.last_synced_at, data.now)}</td>
          <td>
            ${when(lag?.lastSuccessAt, data.now)}${lag?.lastError && html`<br /><small class="red badge">${lag.lastError}</small>`}
          </td>
          <td>
            ${
              incident
                ? html`<span class="badge red">${incident.kind}</span><br /><small
                      >since ${incident.startedAt.slice(0, 16).replace('T', ' ')} UTC ·
                      ${incident.remindersSent} reminders</small
                    >`
                : html`<span class="muted">none</span>`
            }
          </td>
          <td>
            ${portal(row, status)}
            ${
              canAct &&
              html`<form method="post" action="/dashboard/connections/${encodeURIComponent(row.id)}/sync">
                <button type="submit">Sync now</button>
              </form>`
            }
          </td>
        </tr>`
      })}
    </tbody>
  </table>`
}

function chart(data: OverviewData): SafeHtml {
  const { chart } = data
  if (!chart.currency) return html`<p class="muted">No inflows in the last ${CHART_DAYS} days.</p>`
  const others = chart.currencies.filter((currency) => currency !== chart.currency)
  return html`${renderDailyChart(chart.days, chart.currency)}${
    others.length > 0 &&
    html`<p class="filters">
      Other currencies: ${others.map((c) => html`<a href="/dashboard?currency=${c}">${c}</a>`)}
    </p>`
  }`
}

function alertFeed(data: OverviewData): SafeHtml {
  if (data.alerts.length === 0) return html`<p class="muted">No alerts sent.</p>`
  return html`<ul class="alert-feed" id="alerts">
    ${data.alerts.map(
      ({ notice, deliveries }) =>
        html`<li data-alert-id="${notice.id}">
          ${badge(notice.type === 'recovery' ? 'active' : notice.severity, notice.type === 'alert' ? notice.severity : notice.type)}
          <b>${notice.title}</b> <small>${when(notice.occurredAt, data.now)}</small>
          <p>${notice.text}</p>
          ${notice.action && html`<p><small>${notice.action}</small></p>`}
          ${deliveries.length > 0 && html`<p>${deliveries.map((d) => html`<span class="badge ${colorOf(d.status)}" title="${d.lastError ?? ''}">${d.sink}: ${d.status}</span> `)}</p>`}
        </li>`,
    )}
  </ul>`
}

function queues(data: OverviewData): SafeHtml {
  return html`<table>
    <thead>
      <tr>
        <th>Queue</th>
        <th class="num">Waiting</th>
        <th class="num">Active</th>
        <th class="num">Delayed</th>
        <th class="num">Failed</th>
        <th class="num">Oldest waiting</th>
      </tr>
    </thead>
    <tbody>
      ${data.queues.map((queue) =>
        'error' in queue
          ? html`<tr>
              <td>${queue.name}</td>
              <td colspan="5"><span class="badge red">${queue.error}</span></td>
            </tr>`
          : html`<tr>
              <td>${queue.name}</td>
              <td class="num">${(queue.counts.waiting ?? 0) + (queue.counts.prioritized ?? 0)}</td>
              <td class="num">${queue.counts.active ?? 0}</td>
              <td class="num">${queue.counts.delayed ?? 0}</td>
              <td class="num">${queue.counts.failed ?? 0}</td>
              <td class="num">${Math.round(queue.oldestWaitingSeconds)} s</td>
            </tr>`,
      )}
    </tbody>
  </table>`
}

/** `canAct`: the viewer may request a sync (clerk and above). */
export function renderOverview(data: OverviewData, options: { canAct: boolean }): SafeHtml {
  return html`<section class="wide">${stats(data)}</section>
    <section class="wide">
      <h2>Connections</h2>
      ${connections(data, options.canAct)}
    </section>
    <section>
      <h2>Matched vs unmatched inflows <small>per day, last ${CHART_DAYS} days</small></h2>
      ${chart(data)}
    </section>
    <section>
      <h2>Alerts <small>newest first</small></h2>
      ${alertFeed(data)}
    </section>
    <section class="wide">
      <h2>
        Queues <small><a href="/admin/queues">open the queue board</a></small>
      </h2>
      ${queues(data)}
    </section>`
}
