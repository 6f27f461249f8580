import { Decimal } from 'decimal.js'
import { apiErrorOf } from '../api-error.js'
import { findPayments, type presentPayment } from '../api/payments.js'
import type { SidecarContext } from '../context.js'
import { badge, money, shortId } from './format.js'
import { html, type SafeHtml } from './html.js'
import { invoiceTypeahead } from './invoice-typeahead.js'

const FIELDS = ['amount', 'payer', 'reference', 'from', 'to'] as const
type Field = (typeof FIELDS)[number]
const PAGE_SIZE = 50

type Payment = ReturnType<typeof presentPayment>

export type PaymentsData = {
  search: Partial<Record<Field, string>>
  payments: Payment[]
  next: string | null
  /** What was wrong with the search, in words; no results then. */
  problem: string | null
}

/** The search the Payments page shows: GET /api/payments' own, so the page and the API never disagree. */
export async function loadPayments(
  context: SidecarContext,
  query: Record<string, unknown>,
): Promise<PaymentsData> {
  const search: Partial<Record<Field, string>> = {}
  for (const field of FIELDS) {
    const value = query[field]
    if (typeof value === 'string' && value.trim() !== '') search[field] = value.trim()
  }
  const cursor = typeof query.cursor === 'string' && query.cursor !== '' ? query.cursor : undefined
  try {
    const page = await findPayments(context, { ...search, cursor, limit: String(PAGE_SIZE) }, 'dashboard')
    return { search, payments: page.data, next: page.pagination.nextCursor, problem: null }
  } catch (error) {
    const refusal = apiErrorOf(error)
    if (refusal?.status !== 400) throw error
    return { search, payments: [], next: null, problem: refusal.message }
  }
}

/** matched, partly matched or unmatched: how much of an inflow its allocations cover. */
function state(payment: Payment): 'matched' | 'partial' | 'unmatched' | 'outflow' {
  const amount = new Decimal(payment.amount)
  if (amount.lte(0)) return 'outflow'
  const allocated = new Decimal(payment.allocated)
  if (allocated.gte(amount)) return 'matched'
  return allocated.gt(0) ? 'partial' : 'unmatched'
}

const STATE_BADGE = {
  matched: 'paid',
  partial: 'partially_paid',
  unmatched: 'unmatched_payment',
  outflow: 'void',
}

function matchForm(payment: Payment, back: string): SafeHtml {
  return html`<form method="post" action="/dashboard/allocations" class="manual-match">
    <input type="hidden" name="back" value="${back}" /><input
      type="hidden"
      name="transactionId"
      value="${payment.id}"
    />${invoiceTypeahead(payment.id, payment.currency)}<input
      name="amount"
      placeholder="amount (all)"
      aria-label="Amount"
      inputmode="decimal"
    /><button type="submit">Match</button>
  </form>`
}

/**
 * The Payments page: bank lines by amount, payer, reference and posting days (server-side, 50 a page), with what
 * matching made of each; a clerk matches a payment by typing an invoice's number, customer or amount.
 */
export function renderPayments(data: PaymentsData, options: { canAct: boolean; back: string }): SafeHtml {
  const value = (field: Field) => data.search[field] ?? ''
  const query = new URLSearchParams(Object.entries(data.search) as Array<[string, string]>)
  const next = data.next && `/dashboard/payments?${new URLSearchParams([...query, ['cursor', data.next]])}`
  const rows = data.payments.map((payment) => {
    const how = state(payment)
    return html`<tr data-payment-id="${payment.id}" data-state="${how}">
      <td>${payment.postedDate ?? html`<span class="muted">pending</span>`}</td>
      <td class="num">${money(payment.amount, payment.currency)}</td>
      <td>${payment.payer ?? ''}</td>
      <td>${payment.paymentReference ?? payment.description ?? ''}</td>
      <td>
        ${badge(STATE_BADGE[how], how)}${
          how === 'partial' && html` <small>${money(payment.allocated, payment.currency)} allocated</small>`
        }
      </td>
      <td>
        ${
          payment.openException
            ? html`<a href="/dashboard/exceptions?transaction=${payment.id}">${shortId(payment.id)}</a>`
            : shortId(payment.id)
        }
      </td>
      ${options.canAct && html`<td>${(how === 'unmatched' || how === 'partial') && matchForm(payment, options.back)}</td>`}
    </tr>`
  })
  return html`<section class="wide">
    <h2>
      Payments <small>bank lines by amount, payer, reference and posting day; match one to an invoice</small>
    </h2>
    <form method="get" action="/dashboard/payments" class="search" id="payment-search">
      <label
        >Amount <input name="amount" value="${value('amount')}" inputmode="decimal" placeholder="250.00"
      /></label>
      <label>Payer <input name="payer" value="${value('payer')}" placeholder="part of the name" /></label>
      <label>Reference <input name="reference" value="${value('reference')}" placeholder="INV-…" /></label>
      <label>Posted from <input name="from" type="date" value="${value('from')}" /></label>
      <label>to <input name="to" type="date" value="${value('to')}" /></label>
      <button type="submit" class="primary">Search</button>
      <a href="/dashboard/payments">Clear</a>
    </form>
    ${data.problem && html`<p class="notice error" id="payments-problem" role="alert">${data.problem}</p>`}
    <table id="payments">
      <thead>
        <tr>
          <th>Posted</th>
          <th class="num">Amount</th>
          <th>Payer</th>
          <th>Reference</th>
          <th>Matched</th>
          <th>Bank line</th>
          ${options.canAct && html`<th>Match to an invoice</th>`}
        </tr>
      </thead>
      <tbody>
        ${
          rows.length > 0
            ? rows
            : html`<tr>
                <td colspan="7" class="muted">No bank line fits the search.</td>
              </tr>`
        }
      </tbody>
    </table>
    ${next && html`<p><a href="${next}" rel="next">Next ${PAGE_SIZE}</a></p>`}
  </section>`
}
