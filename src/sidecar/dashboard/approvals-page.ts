import { z } from 'zod'
import { createCreditNotes } from '../../credit-notes/index.js'
import { listPendingApprovals } from '../../store/index.js'
import type { Actor } from '../../users/index.js'
import type { SidecarContext } from '../context.js'
import { controlsOf } from '../controls-config.js'
import { presentPendingApproval } from '../pending-approvals.js'
import { money } from './format.js'
import { html, type SafeHtml } from './html.js'

const PAGE_SIZE = 200

type Pending = ReturnType<typeof presentPendingApproval>

/** A decision posted from the Approvals page: which operation, and approve or decline. */
export const ApprovalAction = z.object({
  kind: z.enum(['disposition', 'credit_note', 'remittance']),
  id: z.string().min(1).max(255),
  decision: z.enum(['approve', 'decline']),
})

/** Everything waiting for a second person, oldest first. */
export async function loadApprovals(context: SidecarContext): Promise<Pending[]> {
  const { chart } = controlsOf(context.config)
  const rows = await listPendingApprovals(context.store.db, PAGE_SIZE)
  return rows.map((row) => presentPendingApproval(row, context.config, chart))
}

/** Decides one waiting operation as the signed-in person, through the same calls as the API. */
export async function decideApproval(
  context: SidecarContext,
  kind: z.infer<typeof ApprovalAction>['kind'],
  id: string,
  decision: 'approve' | 'decline',
  actor: Actor,
): Promise<void> {
  if (kind === 'disposition') await context.closing.decideDisposition(id, decision, actor)
  else if (kind === 'remittance') await context.closing.decideRemittance(id, decision, actor)
  else {
    const notes = createCreditNotes({ ...context, controls: controlsOf(context.config) })
    if (!(await notes.decide(id, decision, actor))) throw new Error(`No credit note ${id}.`)
  }
}

const LABELS: Record<string, string> = {
  write_off: 'Write-off',
  clearing: 'Clearing',
  refund: 'Refund',
  on_account: 'Credit on account',
  ignore: 'Ignore',
  credit_note: 'Credit note',
  remittance: 'Remittance fee',
}

function subject(row: Pending): SafeHtml {
  if (row.invoiceId) {
    return html`invoice
      <a href="/dashboard/invoices/${encodeURIComponent(row.invoiceId)}">${row.invoiceId}</a>`
  }
  return html`payment
    <a href="/dashboard/exceptions?transaction=${row.transactionId ?? ''}"
      >${(row.transactionId ?? '').slice(0, 8)}</a
    >`
}

/**
 * The Approvals page (issue 26): every operation waiting for a second person, of every kind, with its maker, amount,
 * account and reason; an approver approves or declines each (the maker's own approval is refused by the policy).
 */
export function renderApprovals(rows: readonly Pending[], options: { canDecide: boolean }): SafeHtml {
  const button = (row: Pending, decision: 'approve' | 'decline') =>
    html`<form
      method="post"
      action="/dashboard/approvals/${row.kind}/${encodeURIComponent(row.id)}/${decision}"
    >
      <input type="hidden" name="back" value="/dashboard/approvals" />
      <button type="submit" class="${decision === 'approve' ? 'primary' : 'danger'}">
        ${decision === 'approve' ? 'Approve' : 'Decline'}
      </button>
    </form>`
  return html`<section class="wide">
    <h2>
      Approvals
      <small>what one person may not do alone: a second person with the approver role decides</small>
    </h2>
    ${
      rows.length === 0
        ? html`<p id="no-approvals">Nothing waits for approval.</p>`
        : html`<table id="approvals">
            <thead>
              <tr>
                <th>What</th>
                <th>Of</th>
                <th class="num">Amount</th>
                <th>Account</th>
                <th>Reason</th>
                <th>Made by</th>
                ${options.canDecide && html`<th>Decide</th>`}
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) =>
                  html`<tr data-kind="${row.kind}" data-id="${row.id}">
                    <td>${LABELS[row.operation] ?? row.operation}</td>
                    <td>${subject(row)}</td>
                    <td class="num">${money(row.amount, row.currency)}</td>
                    <td>${row.account ?? ''}</td>
                    <td>${row.reason}</td>
                    <td class="maker">${row.madeBy ?? 'unknown'} · ${row.madeByRole ?? ''}</td>
                    ${options.canDecide && html`<td class="actions">${button(row, 'approve')}${button(row, 'decline')}</td>`}
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`
}
