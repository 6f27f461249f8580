/**
 * The dashboard: one self-contained page (no build step, no CDN). It carries no data; its script reads /api with
 * the KIT_API_TOKEN the operator pastes once (kept in localStorage) and refreshes every few seconds.
 */
export function renderDashboardPage(options: { nonce: string; sandbox: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bankrec</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>bankrec</h1>
  <span class="badge ${options.sandbox ? 'grey' : 'green'}">${options.sandbox ? 'sandbox mode' : 'live bank'}</span>
  <nav><a href="/admin/queues" id="queues-link">Queues</a> <a href="/metrics">Metrics</a></nav>
  <form id="token-form">
    <input id="token" type="password" placeholder="KIT_API_TOKEN" autocomplete="off" aria-label="API token">
    <button type="submit">Save token</button>
    <button type="button" id="forget">Forget</button>
  </form>
</header>
<p id="notice" class="notice" hidden></p>
<main>
  <section class="wide"><h2>Connections</h2><div id="connections">Loading…</div></section>
  <section><h2>Queues</h2><div id="queues">Loading…</div></section>
  <section><h2>Webhook deliveries <small>(this process, since start)</small></h2><div id="deliveries">Loading…</div></section>
  <section class="wide"><h2>Recent events</h2><div id="events">Loading…</div></section>
  <section class="wide"><h2>Exceptions</h2><div id="exceptions">Loading…</div></section>
  <section class="wide"><h2>Invoices</h2><div id="invoices">Loading…</div></section>
</main>
<footer>Updated <span id="updated">never</span> · refreshes every 5 s</footer>
<script nonce="${options.nonce}">${SCRIPT}</script>
</body>
</html>
`
}

const STYLE = `
:root { font-family: system-ui, sans-serif; color: #1d2433; background: #f4f6fa; }
body { margin: 0; }
header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; padding: .75rem 1.5rem; background: #1d2433; color: #fff; }
header h1 { font-size: 1.25rem; margin: 0; }
header nav a { color: #cfe0ff; margin-right: .75rem; }
header form { margin-left: auto; display: flex; gap: .5rem; }
input, button { font: inherit; padding: .3rem .6rem; border-radius: 4px; border: 1px solid #8a94a6; }
button { background: #e8edf6; cursor: pointer; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(34rem, 1fr)); gap: 1rem; padding: 1rem 1.5rem; }
section { background: #fff; border-radius: 6px; padding: .75rem 1rem; box-shadow: 0 1px 2px rgba(0,0,0,.08); overflow-x: auto; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 1rem; margin: 0 0 .5rem; }
h2 small { font-weight: normal; color: #5b6578; }
table { border-collapse: collapse; width: 100%; font-size: .875rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e6e9ef; white-space: nowrap; }
th { color: #5b6578; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .75rem; font-weight: 600; }
.green { background: #d9f2e3; color: #11643a; }
.amber { background: #fdf0d3; color: #7a4b00; }
.red { background: #fbdcdc; color: #8f1d1d; }
.grey { background: #e6e9ef; color: #3d4658; }
.muted { color: #5b6578; }
.notice { margin: 1rem 1.5rem 0; padding: .6rem 1rem; border-radius: 6px; background: #fdf0d3; color: #7a4b00; }
footer { padding: 0 1.5rem 1rem; color: #5b6578; font-size: .8rem; }
`

const SCRIPT = `
const KEY = 'bankrec.token'
const $ = (id) => document.getElementById(id)
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
const token = () => localStorage.getItem(KEY) || ''

const BADGE = { active: 'green', pendingActivation: 'grey', draft: 'grey', errored: 'amber',
  reauthRequired: 'red', invalidConfig: 'red', revoked: 'red',
  queued: 'green', processed: 'green', duplicate: 'grey', ignored: 'grey', rejected: 'red', unavailable: 'amber', error: 'red' }
const badge = (v) => '<span class="badge ' + (BADGE[v] || 'grey') + '">' + esc(v) + '</span>'

function duration(seconds) {
  if (seconds === null || seconds === undefined) return '<span class="muted">never</span>'
  if (seconds < 90) return Math.round(seconds) + ' s'
  if (seconds < 5400) return Math.round(seconds / 60) + ' min'
  if (seconds < 172800) return (seconds / 3600).toFixed(1) + ' h'
  return (seconds / 86400).toFixed(1) + ' d'
}
const time = (iso) => (iso ? esc(new Date(iso).toLocaleString()) : '<span class="muted">never</span>')

function table(columns, rows) {
  if (!rows.length) return '<p class="muted">None.</p>'
  const head = columns.map((c) => '<th class="' + (c.num ? 'num' : '') + '">' + esc(c.label) + '</th>').join('')
  const body = rows.map((r) => '<tr>' + columns.map((c) => '<td class="' + (c.num ? 'num' : '') + '">' + c.cell(r) + '</td>').join('') + '</tr>').join('')
  return '<table><thead><tr>' + head + '</tr></thead><tbody>' + body + '</tbody></table>'
}

async function api(path) {
  const res = await fetch(path, { headers: { authorization: 'Bearer ' + token() } })
  if (res.status === 404) return { missing: true }
  if (res.status === 401) throw Object.assign(new Error('unauthorized'), { status: 401 })
  if (!res.ok) throw new Error(path + ' answered ' + res.status)
  return res.json()
}

function notice(text) {
  $('notice').hidden = !text
  $('notice').textContent = text || ''
}

function renderConnections(connections, lags) {
  const lagOf = new Map(lags.map((l) => [l.connectionId, l]))
  $('connections').innerHTML = table([
    { label: 'Connection', cell: (c) => esc(c.id) },
    { label: 'Institution', cell: (c) => esc(c.institutionName || c.institutionId || '') },
    { label: 'Status', cell: (c) => badge(c.status) + (c.errorCode ? ' <span class="muted">' + esc(c.errorCode) + '</span>' : '') },
    { label: 'Last sync (bank)', cell: (c) => time(c.lastSyncedAt) },
    { label: 'Mirror lag', num: true, cell: (c) => duration(lagOf.get(c.id)?.lagSeconds) },
    { label: 'Last sync error', cell: (c) => esc(lagOf.get(c.id)?.lastError || '') },
  ], connections)
}

function renderOverview(o) {
  $('queues').innerHTML = table([
    { label: 'Queue', cell: (q) => esc(q.name) },
    { label: 'Waiting', num: true, cell: (q) => q.error ? '<span class="red badge">' + esc(q.error) + '</span>' : esc((q.counts.waiting || 0) + (q.counts.prioritized || 0)) },
    { label: 'Active', num: true, cell: (q) => esc(q.counts?.active ?? '') },
    { label: 'Delayed', num: true, cell: (q) => esc(q.counts?.delayed ?? '') },
    { label: 'Failed', num: true, cell: (q) => esc(q.counts?.failed ?? '') },
    { label: 'Oldest waiting', num: true, cell: (q) => q.error ? '' : duration(q.oldestWaitingSeconds) },
  ], o.queues)
  $('deliveries').innerHTML = table([
    { label: 'Outcome', cell: (d) => badge(d.outcome) },
    { label: 'Reason', cell: (d) => esc(d.reason) },
    { label: 'Count', num: true, cell: (d) => esc(d.count) },
  ], o.deliveries)
  $('events').innerHTML = table([
    { label: 'Processed', cell: (e) => time(e.processedAt) },
    { label: 'Type', cell: (e) => esc(e.type) },
    { label: 'Outcome', cell: (e) => badge(e.outcome) },
    { label: 'Event', cell: (e) => '<span class="muted">' + esc(e.eventId) + '</span>' },
  ], o.recentEvents)
}

function renderList(id, answer, what) {
  if (answer.missing) {
    $(id).innerHTML = '<p class="muted">' + esc(what) + ' are not available in this version of bankrec.</p>'
    return
  }
  const rows = Array.isArray(answer.data) ? answer.data.slice(0, 50) : []
  const keys = rows.length ? Object.keys(rows[0]).filter((k) => typeof rows[0][k] !== 'object').slice(0, 7) : []
  $(id).innerHTML = table(keys.map((k) => ({ label: k, cell: (r) => (k === 'status' ? badge(r[k]) : esc(r[k])) })), rows)
}

async function refresh() {
  if (!token()) {
    notice('Paste the API token (KIT_API_TOKEN, or the one bankrec start printed) and press Save token.')
    return
  }
  try {
    const [connections, overview, exceptions, invoices] = await Promise.all([
      api('/api/connections'), api('/api/overview'), api('/api/exceptions'), api('/api/invoices'),
    ])
    notice('')
    renderConnections(connections.data || [], overview.data?.syncLag || [])
    if (overview.data) renderOverview(overview.data)
    renderList('exceptions', exceptions, 'Exceptions')
    renderList('invoices', invoices, 'Invoices')
    $('updated').textContent = new Date().toLocaleTimeString()
  } catch (error) {
    notice(error.status === 401 ? 'The saved token was refused; paste the right one.' : 'Could not load: ' + error.message)
  }
}

async function openSession() {
  await fetch('/admin/session', { method: 'POST', headers: { authorization: 'Bearer ' + token() } })
}

$('token-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const value = $('token').value.trim()
  if (!value) return
  localStorage.setItem(KEY, value)
  $('token').value = ''
  await openSession()
  refresh()
})
$('forget').addEventListener('click', async () => {
  localStorage.removeItem(KEY)
  await fetch('/admin/session', { method: 'DELETE' })
  notice('Token forgotten.')
})
// #token=… (the link bankrec start prints) saves the token; the fragment never reaches a server or its logs.
const fromLink = new URLSearchParams(location.hash.slice(1)).get('token')
if (fromLink) {
  localStorage.setItem(KEY, fromLink)
  history.replaceState(null, '', location.pathname)
}
if (token()) openSession()
refresh()
setInterval(refresh, 5000)
`
