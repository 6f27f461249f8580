import { DISPOSITION_KINDS, HOLDING_EXCEPTION_TYPES } from '../../closing/index.js'
import {
  getInvoices,
  listDispositions,
  listExceptions,
  loadMatchTransactions,
  type DispositionRow,
  type MatchExceptionRow,
  type MatchTransactionRow,
} from '../../store/index.js'
import type { SidecarContext } from '../context.js'
import { badge, money, shortId, when } from './format.js'
import { html, type SafeHtml } from './html.js'
import { invoiceTypeahead } from './invoice-typeahead.js'
import { remittanceForm } from './remittance-page.js'

export const EXCEPTION_TYPES = [
  'suggested_match',
  'unmatched_payment',
  'overpayment',
  'ambiguous_reference',
  'currency_mismatch',
  'transfer_leg_missing',
  'payment_returned',
  'uninterpretable_event',
  'unreadable_sync_event',
] as const

const PAGE_SIZE = 50
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type ExceptionsData = {
  now: Date
  type: string | undefined
  /** The key this page starts after (keyset paging). */
  after: string | undefined
  rows: MatchExceptionRow[]
  next: string | null
  counts: Map<string, number>
  /** Only this bank line's exceptions, when set. */
  transactionId: string | undefined
  transactions: Map<string, MatchTransactionRow>
  invoices: Map<string, { number: string; customerName: string | null; amountOpen: string; currency: string }>
  /** Dispositions waiting for approval or in force, newest first. */
  dispositions: DispositionRow[]
}

export async function loadExceptions(
  context: SidecarContext,
  query: { type?: string; after?: string; transaction?: string },
): Promise<ExceptionsData> {
  const { db } = context.store
  const type = EXCEPTION_TYPES.find((t) => t === query.type)
  // One bank line's exceptions (linked from elsewhere); anything but a UUID is ignored, not an error page.
  const transactionId = query.transaction && UUID.test(query.transaction) ? query.transaction : undefined
  const [found, counts, waiting, active] = await Promise.all([
    listExceptions(db, { type, transactionId, state: 'open' }, query.after ?? null, PAGE_SIZE + 1),
    db
      .selectFrom('match_exceptions')
      .select((eb) => ['type', eb.fn.countAll<string>().as('count')])
      .where('resolved_at', 'is', null)
      .groupBy('type')
      .execute(),
    listDispositions(db, { status: 'pending_approval' }, null, PAGE_SIZE),
    listDispositions(db, { status: 'active' }, null, PAGE_SIZE),
  ])
  const rows = found.slice(0, PAGE_SIZE)
  const transactionIds = [...new Set(rows.flatMap((row) => (row.transaction_id ? [row.transaction_id] : [])))]
  const invoiceIds = [...new Set(rows.flatMap((row) => row.invoice_ids))]
  const [transactions, named] = await Promise.all([
    loadMatchTransactions(db, transactionIds),
    getInvoices(db, invoiceIds),
  ])
  return {
    now: context.clock.now(),
    type,
    transactionId,
    after: query.after,
    rows,
    next: found.length > PAGE_SIZE ? rows.at(-1)!.key : null,
    counts: new Map(counts.map((row) => [row.type, Number(row.count)])),
    transactions: new Map(transactions.map((row) => [row.id, row])),
    invoices: new Map(
      named.map((row) => [
        row.id,
        {
          number: row.number,
          customerName: row.customer_name,
          amountOpen: row.state?.amount_open ?? row.amount,
          currency: row.currency,
        },
      ]),
    ),
    dispositions: [...waiting, ...active],
  }
}

function payment(row: MatchExceptionRow, tx: MatchTransactionRow | undefined): SafeHtml {
  if (!tx)
    return row.transfer_id ? html`transfer ${shortId(row.transfer_id)}` : html`<span class="muted">–</span>`
  const reference = tx.payment_reference ?? tx.customer_reference ?? tx.description
  return html`<b>${money(tx.amount, tx.currency)}</b>
    ${tx.posted_date ?? ''}<br />${tx.counterparty_name ?? html`<span class="muted">no counterparty</span>`}${
      reference && html`<br /><small>${reference}</small>`
    }<br />${shortId(tx.id)}`
}

function invoiceCells(row: MatchExceptionRow, data: ExceptionsData): SafeHtml {
  if (row.invoice_ids.length === 0) return html`<span class="muted">none</span>`
  return html`${row.invoice_ids.map((id) => {
    const invoice = data.invoices.get(id)
    return html`<a href="/dashboard/invoices/${encodeURIComponent(id)}">${invoice?.number ?? id}</a>${
        invoice &&
        html` <small
          >${invoice.customerName ?? ''} · open ${money(invoice.amountOpen, invoice.currency)}</small
        >`
      }<br />`
  })}`
}

/** `currency`: the payment's, so the invoice typeahead offers invoices it can pay. */
function actions(row: MatchExceptionRow, back: string, currency: string | null): SafeHtml {
  const key = encodeURIComponent(row.key)
  const backField = html`<input type="hidden" name="back" value="${back}" />`
  return html`${
    row.type === 'suggested_match' &&
    html`<form method="post" action="/dashboard/exceptions/${key}/accept">
        ${backField}<button type="submit" class="primary">Accept</button>
      </form>
      <form method="post" action="/dashboard/exceptions/${key}/reject">
        ${backField}<button type="submit" class="danger">Reject</button>
      </form>
      <br />`
  }${
    row.transaction_id &&
    row.amount !== null &&
    row.settled &&
    HOLDING_EXCEPTION_TYPES.has(row.type) &&
    html`<form method="post" action="/dashboard/exceptions/${key}/dispose" class="dispose">
        ${backField}<select name="kind" aria-label="Disposition">
          ${DISPOSITION_KINDS.map(
            (kind) => html`<option value="${kind}">${kind.replace(/_/g, ' ')}</option>`,
          )}</select
        ><input name="reason" placeholder="reason" aria-label="Reason" required /><input
          name="account"
          placeholder="account (default)"
          aria-label="Account"
        /><button type="submit">Dispose</button>
      </form>
      <form method="post" action="/dashboard/transactions/${row.transaction_id}/give-back">
        ${backField}<button type="submit">Give back to the engine</button>
      </form>
      ${remittanceForm(row.transaction_id, back)}`
  }${
    row.transaction_id &&
    html`<form method="post" action="/dashboard/allocations" class="manual-match">
      ${backField}<input
        type="hidden"
        name="transactionId"
        value="${row.transaction_id}"
      />${invoiceTypeahead(row.key, currency)}<input
        name="amount"
        placeholder="amount (all)"
        aria-label="Amount"
        inputmode="decimal"
      /><button type="submit">Match</button>
    </form>`
  }`
}

/** Approve and decline (while waiting) and undo buttons of a disposition, back to `back`. */
export function dispositionActions(row: DispositionRow, back: string): SafeHtml {
  const backField = html`<input type="hidden" name="back" value="${back}" />`
  const button = (action: string, label: string, kind = '') =>
    html`<form method="post" action="/dashboard/dispositions/${row.id}/${action}">
      ${backField}<button type="submit" class="${kind}">${label}</button>
    </form>`
  return html`${row.status === 'pending_approval' && html`${button('approve', 'Approve', 'primary')}${button('decline', 'Decline', 'danger')}`}${button('undo', 'Undo')}`
}

function renderDispositions(data: ExceptionsData, back: string, canAct: boolean): SafeHtml {
  if (data.dispositions.length === 0) return html``
  return html`<h3>Dispositions <small>waiting for approval or in force; undo puts the amount back</small></h3>
    <table id="dispositions">
      <thead>
        <tr>
          <th>Kind</th>
          <th class="num">Amount</th>
          <th>Account</th>
          <th>Reason</th>
          <th>Status</th>
          <th>By</th>
          ${canAct && html`<th>Actions</th>`}
        </tr>
      </thead>
      <tbody>
        ${data.dispositions.map(
          (row) =>
            html`<tr
              data-disposition-id="${row.id}"
              data-status="${row.status}"
              data-key="${row.exception_key ?? ''}"
            >
              <td>${row.kind.replace(/_/g, ' ')}</td>
              <td class="num">${money(row.amount, row.currency)}</td>
              <td>${row.account}</td>
              <td>
                <small>${row.reason}</small>${
                  row.invoice_id &&
                  html`<br /><small
                      >rest of invoice
                      <a href="/dashboard/invoices/${encodeURIComponent(row.invoice_id)}"
                        >${row.invoice_id}</a
                      ></small
                    >`
                }
              </td>
              <td>${badge(row.status)}</td>
              <td class="made-by">
                ${row.made_by}${row.decided_by && html` · approved by ${row.decided_by}`}
              </td>
              ${canAct && html`<td>${dispositionActions(row, back)}</td>`}
            </tr>`,
        )}
      </tbody>
    </table>`
}

/** `canAct`: the viewer may accept, reject and match (clerk and above); a viewer sees no forms. */
export function renderExceptions(data: ExceptionsData, options: { canAct: boolean }): SafeHtml {
  const total = [...data.counts.values()].reduce((sum, n) => sum + n, 0)
  const backQuery = new URLSearchParams({
    ...(data.type ? { type: data.type } : {}),
    ...(data.transactionId ? { transaction: data.transactionId } : {}),
  }).toString()
  const back = `/dashboard/exceptions${backQuery ? `?${backQuery}` : ''}`
  const filters = html`<p class="filters">
    <a href="/dashboard/exceptions" ${data.type ? '' : html` aria-current="true"`}>all (${total})</a
    >${EXCEPTION_TYPES.map(
      (type) =>
        html`<a
          href="/dashboard/exceptions?type=${type}"
          ${data.type === type ? html` aria-current="true"` : ''}
          >${type.replace(/_/g, ' ')} (${data.counts.get(type) ?? 0})</a
        >`,
    )}
  </p>`
  const table =
    data.rows.length === 0
      ? html`<p class="muted">No open exceptions${data.type ? ' of this type' : ''}.</p>`
      : html`<table id="exceptions">
          <thead>
            <tr>
              <th>Type</th>
              <th>Payment</th>
              <th>Invoices</th>
              <th class="num" title="evidence score in points (docs/matching.md), not a probability">
                Points
              </th>
              <th>Why</th>
              <th>Opened</th>
              ${options.canAct && html`<th>Actions</th>`}
            </tr>
          </thead>
          <tbody>
            ${data.rows.map(
              (row) =>
                html`<tr data-key="${row.key}" data-type="${row.type}">
                  <td>${badge(row.type)}</td>
                  <td>
                    ${payment(row, row.transaction_id ? data.transactions.get(row.transaction_id) : undefined)}
                  </td>
                  <td>${invoiceCells(row, data)}</td>
                  <td class="num">${row.confidence === null ? '' : `${row.confidence} pts`}</td>
                  <td><small>${row.details.reasons.map((reason) => html`${reason}<br />`)}</small></td>
                  <td>${when(row.opened_at, data.now)}</td>
                  ${
                    options.canAct &&
                    html`<td>
                      ${actions(row, back, data.transactions.get(row.transaction_id ?? '')?.currency ?? null)}
                    </td>`
                  }
                </tr>`,
            )}
          </tbody>
        </table>`
  const next =
    data.next &&
    html`<p>
      <a
        href="/dashboard/exceptions?${new URLSearchParams({
          ...(data.type ? { type: data.type } : {}),
          ...(data.transactionId ? { transaction: data.transactionId } : {}),
          after: data.next,
        }).toString()}"
        >Next page →</a
      >
    </p>`
  return html`<section class="wide">
    <h2>
      Exceptions
      <small
        >open, oldest key first; accept or reject a suggestion, match a payment to an invoice yourself,
        dispose of what an exception holds, or give a payment back to the engine</small
      >
    </h2>
    ${filters}${table}${next}${renderDispositions(data, back, options.canAct)}
  </section>`
}
