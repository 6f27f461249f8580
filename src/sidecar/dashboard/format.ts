import { amountIn } from '../../journal/index.js'
import { groupDigits } from './daily-chart.js'
import { html, type SafeHtml } from './html.js'

const COLORS: Record<string, string> = {
  // connection statuses
  active: 'green',
  draft: 'grey',
  pendingActivation: 'grey',
  errored: 'amber',
  reauthRequired: 'red',
  invalidConfig: 'red',
  revoked: 'red',
  // invoice statuses
  open: 'blue',
  partially_paid: 'amber',
  paid: 'green',
  overpaid: 'amber',
  void: 'grey',
  // exception types
  suggested_match: 'blue',
  unmatched_payment: 'amber',
  overpayment: 'amber',
  currency_mismatch: 'red',
  ambiguous_reference: 'amber',
  transfer_leg_missing: 'red',
  unreadable_sync_event: 'amber',
  // alert severities and delivery states
  critical: 'red',
  warning: 'amber',
  info: 'grey',
  delivered: 'green',
  pending: 'grey',
  failed: 'red',
}

/** The badge colour of a status, type or severity; grey for anything unknown. */
export function colorOf(value: string): string {
  return COLORS[value] ?? 'grey'
}

export function badge(value: string, label = value): SafeHtml {
  return html`<span class="badge ${colorOf(value)}">${label.replace(/_/g, ' ')}</span>`
}

function ago(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000)
  const suffix = ms >= 0 ? 'ago' : 'from now'
  if (seconds < 90) return `${seconds} s ${suffix}`
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ${suffix}`
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h ${suffix}`
  return `${(seconds / 86_400).toFixed(1)} d ${suffix}`
}

/** A moment in UTC with how long ago it was; "never" for none. */
export function when(at: string | Date | null | undefined, now: Date): SafeHtml {
  if (!at) return html`<span class="muted">never</span>`
  const date = typeof at === 'string' ? new Date(at) : at
  const iso = date.toISOString()
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>
    <small>${ago(now.getTime() - date.getTime())}</small>`
}

/** An amount with its currency's decimals (JPY 0, EUR 2, KWD 3; never rounded), digits grouped. */
export function money(amount: string | null | undefined, currency?: string | null): string {
  if (amount === null || amount === undefined) return ''
  return currency ? `${groupDigits(amountIn(amount, currency))} ${currency}` : groupDigits(amount)
}

/** The first characters of a long id, the whole id on hover. */
export function shortId(id: string): SafeHtml {
  return html`<span class="mono" title="${id}">${id.length > 13 ? `${id.slice(0, 8)}…` : id}</span>`
}

/** An http(s) URL from bank data, or undefined: anything else (javascript:, data:) never becomes a link. */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined
  try {
    return /^https?:$/.test(new URL(url).protocol) ? url : undefined
  } catch {
    return undefined
  }
}
