import { Decimal } from 'decimal.js'
import { createInvoices, INVOICE_STATUSES, InvoiceError, type Invoice } from '../../invoices/index.js'
import { INVOICE_WRITE_OFF_REASONS } from '../../closing/index.js'
import {
  invoiceWriteOffsOf,
  listAllocations,
  listExceptions,
  type AllocationRow,
  type DispositionRow,
  type MatchExceptionRow,
} from '../../store/index.js'
import type { SidecarContext } from '../context.js'
import { dispositionActions } from './exceptions-page.js'
import { badge, money, shortId, when } from './format.js'
import { html, type SafeHtml } from './html.js'

const PAGE_SIZE = 100

export type InvoicesData = {
  status: string | undefined
  customer: string | undefined
  cursor: string | undefined
  invoices: Invoice[]
  next: string | null
  allocations: Map<string, AllocationRow[]>
  problem: string | null
}

export async function loadInvoices(
  context: SidecarContext,
  query: { status?: string; customer?: string; cursor?: string },
): Promise<InvoicesData> {
  const status = INVOICE_STATUSES.find((s) => s === query.status)
  const customer = query.customer?.trim() || undefined
  const base = { status, customer, cursor: query.cursor, allocations: new Map(), next: null }
  let page
  try {
    page = await createInvoices(context).list({ status, customer, cursor: query.cursor, limit: PAGE_SIZE })
  } catch (error) {
    if (!(error instanceof InvoiceError)) throw error
    return { ...base, invoices: [], problem: error.message }
  }
  const ids = page.data.map((invoice) => invoice.id)
  const rows =
    ids.length === 0
      ? []
      : await context.store.db
          .selectFrom('allocations')
          .selectAll()
          .where('invoice_id', 'in', ids)
          .where('reversed_at', 'is', null)
          .orderBy('id')
          .execute()
  const allocations = new Map<string, AllocationRow[]>()
  for (const row of rows) allocations.set(row.invoice_id, [...(allocations.get(row.invoice_id) ?? []), row])
  return {
    ...base,
    invoices: page.data,
    next: page.pagination.nextCursor,
    allocations,
    problem: null,
  }
}

/** Who made an allocation: the engine, or the person whose match it is (older rows: "person"). */
function madeBy(row: AllocationRow): string {
  return row.made_by === 'person' && row.actor ? row.actor : row.made_by
}

function allocationList(rows: readonly AllocationRow[] | undefined, currency: string): SafeHtml {
  if (!rows || rows.length === 0) return html`<span class="muted">none</span>`
  return html`${rows.map(
    (row) =>
      html`<span class="allocation"
          >${money(row.amount, currency)} ← ${shortId(row.transaction_id)}
          <small>${row.rule}, ${madeBy(row)}${row.settled ? '' : ', pending'}</small></span
        ><br />`,
  )}`
}

export function renderInvoices(data: InvoicesData): SafeHtml {
  const link = (status: string | undefined) => {
    const params = new URLSearchParams({
      ...(status ? { status } : {}),
      ...(data.customer ? { customer: data.customer } : {}),
    })
    return `/dashboard/invoices${params.size > 0 ? `?${params.toString()}` : ''}`
  }
  const filters = html`<form class="filters" method="get" action="/dashboard/invoices">
    <a href="${link(undefined)}" ${data.status ? '' : html` aria-current="true"`}>all</a
    >${INVOICE_STATUSES.map(
      (status) =>
        html`<a href="${link(status)}" ${data.status === status ? html` aria-current="true"` : ''}
          >${status.replace(/_/g, ' ')}</a
        >`,
    )}
    ${data.status && html`<input type="hidden" name="status" value="${data.status}" />`}
    <input
      name="customer"
      value="${data.customer ?? ''}"
      placeholder="customer name"
      aria-label="Customer"
    /><button type="submit">Filter</button>
  </form>`
  const table =
    data.invoices.length === 0
      ? html`<p class="muted">${data.problem ?? 'No invoices.'}</p>`
      : html`<table id="invoices">
          <thead>
            <tr>
              <th>Invoice</th>
              <th>Customer</th>
              <th>Due</th>
              <th class="num">Amount</th>
              <th class="num">Paid</th>
              <th class="num">Open</th>
              <th>Status</th>
              <th>Allocations</th>
            </tr>
          </thead>
          <tbody>
            ${data.invoices.map(
              (invoice) =>
                html`<tr data-invoice-id="${invoice.id}" data-status="${invoice.status}">
                  <td>
                    <a href="/dashboard/invoices/${encodeURIComponent(invoice.id)}">${invoice.number}</a
                    ><br />${shortId(invoice.id)}
                  </td>
                  <td>${invoice.customerName ?? ''}</td>
                  <td>${invoice.dueDate ?? invoice.issueDate ?? ''}</td>
                  <td class="num">${money(invoice.amount, invoice.currency)}</td>
                  <td class="num">
                    ${money(invoice.amountPaid, invoice.currency)}${!new Decimal(invoice.amountPending).isZero() ? html`<br /><small>${money(invoice.amountPending, invoice.currency)} pending</small>` : ''}
                  </td>
                  <td class="num">${money(invoice.amountOpen, invoice.currency)}</td>
                  <td>${badge(invoice.status)}</td>
                  <td>${allocationList(data.allocations.get(invoice.id), invoice.currency)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
  const next =
    data.next &&
    html`<p>
      <a
        href="/dashboard/invoices?${new URLSearchParams({
          ...(data.status ? { status: data.status } : {}),
          ...(data.customer ? { customer: data.customer } : {}),
          cursor: data.next,
        }).toString()}"
        >Next page →</a
      >
    </p>`
  return html`<section class="wide">
    <h2>Invoices <small>status and allocations as matching derived them</small></h2>
    ${filters}${table}${next}
  </section>`
}

export type InvoiceData = {
  now: Date
  invoice: Invoice
  allocations: AllocationRow[]
  exceptions: MatchExceptionRow[]
  /** A person's write-offs of the invoice's open rest, every status, newest first. */
  writeOffs: DispositionRow[]
}

export async function loadInvoice(context: SidecarContext, id: string): Promise<InvoiceData | undefined> {
  const invoice = await createInvoices(context).get(id)
  if (!invoice) return undefined
  const { db } = context.store
  const [allocations, exceptions, writeOffs] = await Promise.all([
    listAllocations(db, { invoiceId: id, includeReversed: true }, null, 500),
    listExceptions(db, { invoiceId: id, state: 'open' }, null, 100),
    invoiceWriteOffsOf(db, id),
  ])
  return { now: context.clock.now(), invoice, allocations, exceptions, writeOffs }
}

/** The "Write off rest" form of an invoice with something open (docs/closing.md). */
function writeOffForm(invoice: Invoice, back: string): SafeHtml {
  if (invoice.status === 'void' || new Decimal(invoice.amountOpen).lte(0)) return html``
  return html`<form
    method="post"
    action="/dashboard/invoices/${encodeURIComponent(invoice.id)}/write-off"
    class="write-off"
  >
    <input type="hidden" name="back" value="${back}" /><select name="reason" aria-label="Write-off reason">
      ${INVOICE_WRITE_OFF_REASONS.map((reason) => html`<option value="${reason}">${reason.replace(/_/g, ' ')}</option>`)}</select
    ><input
      name="amount"
      placeholder="amount (all ${invoice.amountOpen} open)"
      aria-label="Amount"
      inputmode="decimal"
    /><input name="account" placeholder="account (default)" aria-label="Account" /><input
      name="note"
      placeholder="note"
      aria-label="Note"
    /><button type="submit">Write off rest</button>
  </form>`
}

function writeOffList(data: InvoiceData, back: string, canAct: boolean): SafeHtml {
  if (data.writeOffs.length === 0) return html`<p class="muted">None.</p>`
  return html`<table id="write-offs">
    <thead>
      <tr>
        <th class="num">Amount</th>
        <th>Reason</th>
        <th>Account</th>
        <th>Status</th>
        <th>By</th>
        ${canAct && html`<th></th>`}
      </tr>
    </thead>
    <tbody>
      ${data.writeOffs.map(
        (row) =>
          html`<tr data-disposition-id="${row.id}" data-status="${row.status}">
            <td class="num">${money(row.amount, row.currency)}</td>
            <td>${row.reason.replace(/_/g, ' ')}${row.note && html`<br /><small>${row.note}</small>`}</td>
            <td>${row.account}</td>
            <td>${badge(row.status)}</td>
            <td class="made-by">${row.made_by}${row.decided_by && html` · decided by ${row.decided_by}`}</td>
            ${
              canAct &&
              html`<td>
                ${row.status === 'active' || row.status === 'pending_approval' ? dispositionActions(row, back) : ''}
              </td>`
            }
          </tr>`,
      )}
    </tbody>
  </table>`
}

/** `canAct`: the viewer may unmatch and write off (clerk and above). */
export function renderInvoice(data: InvoiceData, options: { canAct: boolean }): SafeHtml {
  const { invoice } = data
  const back = `/dashboard/invoices/${encodeURIComponent(invoice.id)}`
  const fields: Array<[string, string | SafeHtml]> = [
    ['Status', badge(invoice.status)],
    ['Customer', invoice.customerName ?? ''],
    ['Amount', money(invoice.amount, invoice.currency)],
    ['Paid', money(invoice.amountPaid, invoice.currency)],
    ['Pending', money(invoice.amountPending, invoice.currency)],
    ['Open', money(invoice.amountOpen, invoice.currency)],
    ['Overpaid', money(invoice.amountOverpaid, invoice.currency)],
    ['Written off', money(invoice.amountWrittenOff, invoice.currency)],
    ['Issued', invoice.issueDate ?? ''],
    ['Due', invoice.dueDate ?? ''],
  ]
  return html`<section class="wide">
      <h2>Invoice ${invoice.number} <small>${invoice.id}</small></h2>
      <table id="invoice" data-status="${invoice.status}">
        <tbody>
          ${fields.map(
            ([label, value]) =>
              html`<tr>
                <th>${label}</th>
                <td>${value}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section class="wide">
      <h2>Allocations</h2>
      ${
        data.allocations.length === 0
          ? html`<p class="muted">No payment is allocated to this invoice.</p>`
          : html`<table id="allocations">
              <thead>
                <tr>
                  <th>Transaction</th>
                  <th class="num">Amount</th>
                  <th>How</th>
                  <th>Made</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${data.allocations.map(
                  (row) =>
                    html`<tr data-allocation-id="${row.id}" ${row.reversed_at ? html` class="muted"` : ''}>
                      <td>${shortId(row.transaction_id)}</td>
                      <td class="num">
                        ${money(row.amount, invoice.currency)}${!new Decimal(row.write_off).isZero() ? html`<br /><small>${money(row.write_off)} written off</small>` : ''}
                      </td>
                      <td>
                        ${row.rule}${row.matched_reference && html` <small>"${row.matched_reference}"</small>`}
                        · <span class="made-by">${madeBy(row)}</span>${row.settled ? '' : ' · pending'}${
                          row.evidence.length > 0 &&
                          html`<br /><small class="reasons"
                              >${row.confidence} pts ·
                              ${row.evidence.map((item) => html`${item.text}<br />`)}</small
                            >`
                        }
                      </td>
                      <td>
                        ${when(row.created_at, data.now)}${row.reversed_at && html`<br /><small>reversed: ${row.reversal_reason ?? ''}</small>`}
                      </td>
                      <td>
                        ${
                          row.reversed_at || !options.canAct
                            ? ''
                            : html`<form method="post" action="/dashboard/allocations/${row.id}/unmatch">
                                <input type="hidden" name="back" value="${back}" /><button
                                  type="submit"
                                  class="danger"
                                >
                                  Unmatch
                                </button>
                              </form>`
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>
    <section class="wide">
      <h2>Write-offs <small>of the open rest, by a person; undo opens the amount again</small></h2>
      ${writeOffList(data, back, options.canAct)}${options.canAct && writeOffForm(invoice, back)}
    </section>
    <section class="wide">
      <h2>Open exceptions naming this invoice</h2>
      ${
        data.exceptions.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<ul>
              ${data.exceptions.map((row) => html`<li>${badge(row.type)} ${row.details.reasons.join('; ')} <a href="/dashboard/exceptions?type=${row.type}">review</a></li>`)}
            </ul>`
      }
    </section>`
}
