import {
  AUTO_APPLY_MODES,
  TrustReportRequest,
  type AutoApplyState,
  type TrustLine,
  type TrustReport,
} from '../../matching/index.js'
import type { Evidence } from '../../matcher/index.js'
import type { SidecarContext } from '../context.js'
import { badge, money, shortId, when } from './format.js'
import { html, type SafeHtml } from './html.js'

export type TrustData = {
  now: Date
  report: TrustReport
  mode: AutoApplyState
  /** Why the period asked was not used (a bad date, from after to); null when it was. */
  problem: string | null
  /** An admin sees the form that switches the mode. */
  canChangeMode: boolean
}

const DEFAULT_DAYS = 30

/** The report of the days asked (`from`, `to`), or of the last 30 days when none or a bad period is asked. */
export async function loadTrust(
  context: SidecarContext,
  query: { from?: string; to?: string },
  canChangeMode: boolean,
): Promise<TrustData> {
  const now = context.clock.now()
  const today = now.toISOString().slice(0, 10)
  const fallback = {
    from: new Date(now.getTime() - (DEFAULT_DAYS - 1) * 86_400_000).toISOString().slice(0, 10),
    to: today,
  }
  const asked = query.from !== undefined || query.to !== undefined
  const parsed = TrustReportRequest.safeParse({
    from: query.from ?? fallback.from,
    to: query.to ?? fallback.to,
  })
  const problem =
    asked && !parsed.success
      ? `The period asked is not one (${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}): showing the last ${DEFAULT_DAYS} days.`
      : null
  const period = parsed.success ? parsed.data : fallback
  const [report, mode] = await Promise.all([
    context.matching.trustReport(period),
    context.matching.autoApplyMode(),
  ])
  return { now, report, mode, problem, canChangeMode }
}

/** Points and reasons, never a percentage: a score is not a measured probability (docs/matching.md). */
function evidenceList(evidence: readonly Evidence[]): SafeHtml {
  return html`<ul class="evidence">
    ${evidence.map(
      (item) =>
        html`<li>
          <span class="points">${item.points > 0 ? `+${item.points}` : String(item.points)} pts</span>
          ${item.text}${item.conflict && html` <small>(${item.conflict} conflict)</small>`}
        </li>`,
    )}
  </ul>`
}

function engineCell(line: TrustLine): SafeHtml {
  if (line.engine.returnOf)
    return html`return of payment
    ${shortId(line.engine.returnOf.inflowTransactionId)}${line.engine.returnOf.partial ? ' (part)' : ''}`
  return html`${line.engine.invoices.map(
    (item) =>
      html`<span class="invoice">${item.number ?? item.invoiceId} ${money(item.amount, line.currency)}</span
        >${item.writeOff !== '0' && html` <small>${money(item.writeOff)} written off (${item.writeOffReason ?? ''})</small>`}<br />`,
  )}`
}

function personCell(person: TrustLine['person'], currency: string): SafeHtml {
  return html`${person.decision}${person.actors.length > 0 && html` <small>by ${person.actors.join(', ')}</small>`}
    <br /><small
      >now:
      ${
        person.now.length === 0
          ? 'nothing'
          : person.now
              .map(
                (item) => `${item.invoiceId} ${money(item.amount, currency)} (${item.actor ?? item.madeBy})`,
              )
              .join(', ')
      }</small
    >`
}

function stat(id: string, label: string, value: string | number): SafeHtml {
  return html`<div class="stat" id="${id}"><b>${String(value)}</b>${label}</div>`
}

function modeSection(data: TrustData): SafeHtml {
  const { mode } = data
  return html`<section class="wide" id="trust-mode">
    <h2>
      Automatic matching:
      ${badge(mode.autoApply === 'on' ? 'active' : mode.autoApply === 'shadow' ? 'pending' : 'failed', mode.autoApply)}
    </h2>
    <p>
      ${
        mode.source === 'stored'
          ? html`Set by ${mode.changedBy} ${when(mode.changedAt, data.now)}.`
          : html`From <code>MATCH_AUTO_APPLY</code>; nobody changed it here yet.`
      }
      <small
        >An admin changes it without a restart: <code>bankrec matching mode on|shadow|off</code> or
        <code>PUT /api/settings/matching</code>.</small
      >
    </p>
    ${
      data.canChangeMode &&
      html`<form method="post" action="/dashboard/settings/matching" class="filters" id="trust-switch">
        <input type="hidden" name="back" value="/dashboard/trust" />
        <label
          >Mode
          <select name="autoApply">
            ${AUTO_APPLY_MODES.map(
              (mode) =>
                html`<option value="${mode}" ${mode === data.mode.autoApply ? 'selected' : ''}>
                  ${mode}
                </option>`,
            )}
          </select></label
        >
        <button type="submit" class="primary">Switch</button>
      </form>`
    }
    <form method="get" action="/dashboard/trust" class="filters" id="trust-period">
      <label>From <input type="date" name="from" value="${data.report.from}" /></label>
      <label>To <input type="date" name="to" value="${data.report.to}" /></label>
      <button type="submit">Show</button>
    </form>
  </section>`
}

/** The trust report: what the engine would have done (shadow) or did (on), and how people decided. */
export function renderTrust(data: TrustData): SafeHtml {
  const { shadow, automatic } = data.report
  const decided = shadow.agreed + shadow.disagreed
  // A measured rate of this team's own decisions, so a percentage is honest here.
  const rate = shadow.agreementRate === null ? '–' : `${(shadow.agreementRate * 100).toFixed(1)} %`
  return html`${data.problem && html`<p class="notice error" role="alert" id="trust-problem">${data.problem}</p>`}${modeSection(data)}
    <section class="wide" id="trust-shadow">
      <h2>
        Shadow mode
        <small
          >bank lines the engine would have settled by itself, ${data.report.from} to ${data.report.to}</small
        >
      </h2>
      <div class="stats">
        ${stat('trust-lines', 'lines it would have settled', shadow.lines)}
        ${stat('trust-agreed', 'people agreed', shadow.agreed)}
        ${stat('trust-disagreed', 'people chose differently', shadow.disagreed)}
        ${stat('trust-open', 'nobody decided yet', shadow.open)}
        ${stat('trust-rate', `agreement (${shadow.agreed} of ${decided} decided)`, rate)}
        ${stat('trust-later', 'applied after switching on', shadow.appliedLater)}
      </div>
      <h2>
        Disagreements <small>the engine's evidence in points (not a probability) and what people did</small>
      </h2>
      ${
        shadow.disagreements.length === 0
          ? html`<p class="muted" id="no-disagreements">No disagreement in these days.</p>`
          : html`<table id="disagreements">
              <thead>
                <tr>
                  <th>Payment</th>
                  <th>Engine would have</th>
                  <th class="num">Points</th>
                  <th>Evidence</th>
                  <th>People</th>
                </tr>
              </thead>
              <tbody>
                ${shadow.disagreements.map(
                  (line) =>
                    html`<tr data-transaction-id="${line.transactionId}">
                      <td>
                        ${shortId(line.transactionId)}<br />${money(line.amount, line.currency)}<br />${when(line.recordedAt, data.now)}
                      </td>
                      <td>${engineCell(line)}</td>
                      <td class="num">${line.points} pts</td>
                      <td>${evidenceList(line.engine.evidence)}</td>
                      <td>${personCell(line.person, line.currency)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    <section class="wide" id="trust-automatic">
      <h2>Automation on <small>bank lines the engine settled by itself, and what people undid</small></h2>
      <div class="stats">
        ${stat('auto-lines', 'lines settled by the engine', automatic.lines)}
        ${stat('auto-undone', 'undone by people', automatic.undone)}
        ${stat('auto-returns', `returns (${automatic.returnsUndone} rejected)`, automatic.returns)}
      </div>
      ${
        automatic.undoneLines.length > 0 &&
        html`<table id="undone">
          <thead>
            <tr>
              <th>Payment</th>
              <th>Engine applied</th>
              <th>Evidence</th>
              <th>People</th>
            </tr>
          </thead>
          <tbody>
            ${automatic.undoneLines.map(
              (line) =>
                html`<tr data-transaction-id="${line.transactionId}">
                  <td>${shortId(line.transactionId)}<br />${when(line.settledAt, data.now)}</td>
                  <td>
                    ${line.engine.invoices.map((item) => html`${item.number ?? item.invoiceId} ${money(item.amount)}<br />`)}
                    <small>${line.engine.points} pts</small>
                  </td>
                  <td>${evidenceList(line.engine.evidence)}</td>
                  <td>${personCell(line.person, '')}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
      }
      ${data.report.truncated && html`<p class="muted">Lists cut at 500 lines; the counts cover every line.</p>`}
    </section>`
}
