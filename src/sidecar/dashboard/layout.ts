import type { Actor } from '../../users/index.js'
import { html, raw, type SafeHtml } from './html.js'

export type PageShell = {
  title: string
  nonce: string
  sandbox: boolean
  /** The nav entry to mark current; none on the sign-in page. */
  current?:
    'overview' | 'exceptions' | 'invoices' | 'activity' | 'trust' | 'approvals' | 'payments' | 'charts'
  /** Who is signed in, shown beside Sign out. */
  actor?: Actor
  notice?: { kind: 'ok' | 'error'; text: string } | null
  /** Deployment problems operations must fix (SidecarContext.warnings), on every signed-in page. */
  warnings?: readonly string[]
  /** Re-render `main` in place every few seconds while nobody is typing. */
  refresh?: boolean
  body: SafeHtml
}

const NAV = [
  ['overview', '/dashboard', 'Overview'],
  ['exceptions', '/dashboard/exceptions', 'Exceptions'],
  ['invoices', '/dashboard/invoices', 'Invoices'],
  ['activity', '/dashboard/activity', 'Activity'],
  ['trust', '/dashboard/trust', 'Trust'],
  ['approvals', '/dashboard/approvals', 'Approvals'],
  ['payments', '/dashboard/payments', 'Payments'],
  ['charts', '/dashboard/charts', 'Charts'],
] as const

/** The HTML around every dashboard page: one inline style and one inline script, both under the page's nonce. */
export function renderPage(page: PageShell): string {
  const signedIn = page.current !== undefined
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · bankrec</title>
<style nonce="${page.nonce}">${raw(STYLE)}</style>
</head>
<body>
<header>
  <h1><a href="/dashboard">bankrec</a></h1>
  <span class="badge ${page.sandbox ? 'grey' : 'green'}">${page.sandbox ? 'sandbox mode' : 'live bank'}</span>
  ${
    signedIn &&
    html`<nav>
        ${NAV.map(
          ([key, href, label]) =>
            html`<a href="${href}" ${raw(page.current === key ? ' aria-current="page"' : '')}>${label}</a>`,
        )}
        <a href="/admin/queues">Queues</a>
        <a href="/metrics">Metrics</a>
      </nav>
      <form method="post" action="/dashboard/logout" class="signout">
        ${page.actor && html`<span class="whoami">${page.actor.name} · ${page.actor.role}</span>`}
        <button type="submit">Sign out</button>
      </form>`
  }
</header>
${(page.warnings ?? []).map((warning) => html`<p class="notice error" role="alert">${warning}</p>`)}
${page.notice && html`<p class="notice ${page.notice.kind}" role="status">${page.notice.text}</p>`}
<main${raw(page.refresh ? ' data-refresh="5000"' : '')}>${page.body}</main>
<script nonce="${page.nonce}">${raw(SCRIPT)}</script>
</body>
</html>
`.value
}

const STYLE = `
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2433; background: #f4f6fa; }
body { margin: 0; }
a { color: #1f4fbf; }
header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; padding: .7rem 1.5rem; background: #1d2433; color: #fff; }
header h1 { font-size: 1.2rem; margin: 0; }
header h1 a { color: #fff; text-decoration: none; }
header nav { display: flex; gap: .9rem; }
header nav a { color: #cfe0ff; text-decoration: none; }
header nav a[aria-current="page"] { color: #fff; font-weight: 600; border-bottom: 2px solid #7fb0ff; }
header .signout { margin-left: auto; display: flex; gap: .6rem; align-items: center; }
header .whoami { color: #cfe0ff; font-size: .85rem; }
input, button, select { font: inherit; padding: .25rem .55rem; border-radius: 4px; border: 1px solid #8a94a6; }
button { background: #e8edf6; cursor: pointer; }
button.primary { background: #1f6f43; border-color: #1f6f43; color: #fff; }
button.danger { background: #fff; border-color: #b33; color: #8f1d1d; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: 1rem; padding: 1rem 1.5rem; }
section { background: #fff; border-radius: 6px; padding: .75rem 1rem; box-shadow: 0 1px 2px rgba(0,0,0,.08); overflow-x: auto; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 1rem; margin: 0 0 .6rem; }
h2 small { font-weight: normal; color: #5b6578; }
table { border-collapse: collapse; width: 100%; font-size: .85rem; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e6e9ef; vertical-align: top; }
th { color: #5b6578; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td form { display: inline-flex; gap: .3rem; margin: 0 .3rem .2rem 0; }
td input { width: 9rem; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .75rem; font-weight: 600; white-space: nowrap; }
.green { background: #d9f2e3; color: #11643a; }
.amber { background: #fdf0d3; color: #7a4b00; }
.red { background: #fbdcdc; color: #8f1d1d; }
.grey { background: #e6e9ef; color: #3d4658; }
.blue { background: #dde8ff; color: #1f3f8f; }
.muted, small { color: #5b6578; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .8rem; }
.stats { display: flex; gap: 1rem; flex-wrap: wrap; }
.stat { flex: 1 1 9rem; background: #f4f6fa; border-radius: 6px; padding: .5rem .75rem; }
.stat b { display: block; font-size: 1.4rem; }
.stat.alarm { background: #fbdcdc; color: #8f1d1d; }
.filters { display: flex; gap: .5rem; flex-wrap: wrap; margin-bottom: .6rem; font-size: .85rem; }
.filters a { padding: .1rem .5rem; border-radius: 999px; background: #eef1f6; text-decoration: none; }
.filters a[aria-current="true"] { background: #1d2433; color: #fff; }
.notice { margin: 1rem 1.5rem 0; padding: .6rem 1rem; border-radius: 6px; }
.notice.ok { background: #d9f2e3; color: #11643a; }
.notice.error { background: #fbdcdc; color: #8f1d1d; }
.alert-feed { list-style: none; margin: 0; padding: 0; font-size: .85rem; }
.alert-feed li { padding: .4rem 0; border-bottom: 1px solid #e6e9ef; }
.alert-feed p { margin: .2rem 0 0; }
.signin { max-width: 28rem; margin: 3rem auto; display: block; }
.signin form { display: flex; gap: .5rem; margin-top: .75rem; }
.signin input { flex: 1; }
svg text { font-size: 11px; fill: #5b6578; }
.legend { display: flex; gap: 1rem; font-size: .8rem; margin-top: .3rem; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; vertical-align: middle; margin-right: .3rem; }
.swatch.matched { background: #2e9e5b; }
.swatch.partial { background: #e0a526; }
.swatch.unmatched { background: #d0463b; }
.search { display: flex; gap: .5rem; flex-wrap: wrap; align-items: end; margin-bottom: .6rem; font-size: .85rem; }
.search label { display: flex; flex-direction: column; gap: .15rem; }
.search input { width: 10rem; }
td input[data-typeahead] { width: 14rem; }
`

const SCRIPT = `
(() => {
  // The sign-in link bankrec start prints carries the token in the fragment, which never reaches a server or a log.
  // It signs nobody in by itself (a link someone else made would sign this browser in as them): the form is
  // filled, the page says whose token it is, and the person presses the button.
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  const signin = document.getElementById('signin-form')
  if (token && signin) {
    history.replaceState(null, '', location.pathname + location.search)
    signin.elements.token.value = token
    const notice = document.getElementById('signin-link')
    fetch('/dashboard/login/holder', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    }).then(async (res) => {
      if (!res.ok) throw new Error(String(res.status))
      const holder = await res.json()
      notice.querySelector('[data-holder=name]').textContent = holder.name
      notice.querySelector('[data-holder=role]').textContent = holder.role
      document.getElementById('signin-button').textContent = 'Sign in as ' + holder.name
    }).catch(() => {
      signin.elements.token.value = ''
      notice.classList.add('error')
      notice.textContent = 'The link’s token was refused: paste a token to sign in.'
    }).finally(() => { notice.hidden = false })
    return
  }
  // A file chosen for a form is read into its text field (the remittance advice): the form posts text only.
  document.addEventListener('change', async (event) => {
    const input = event.target
    if (!input.matches || !input.matches('input[type=file][data-fill]') || !input.files[0]) return
    input.form.elements[input.dataset.fill].value = await input.files[0].text()
  })
  // The invoice typeahead of a manual match: open invoices like what was typed, in the payment's currency.
  let asked = 0
  document.addEventListener('input', async (event) => {
    const input = event.target
    if (!input.matches || !input.matches('input[data-typeahead]')) return
    const q = input.value.trim()
    const list = document.getElementById(input.getAttribute('list'))
    if (!q || !list) return
    const ask = ++asked
    const query = new URLSearchParams({ q })
    if (input.dataset.currency) query.set('currency', input.dataset.currency)
    try {
      const res = await fetch(input.dataset.typeahead + '?' + query, { credentials: 'same-origin' })
      if (!res.ok || ask !== asked) return
      const { data } = await res.json()
      // A later keystroke may have asked again while this body was read: only the last question's answer shows.
      if (ask !== asked) return
      list.dataset.answers = q
      list.replaceChildren(...data.map((invoice) => {
        const option = document.createElement('option')
        option.value = invoice.id
        option.label = invoice.number + ' · ' + (invoice.customerName || '') + ' · ' + invoice.amountOpen + ' ' + invoice.currency + ' open'
        return option
      }))
    } catch {}
  })
  const main = document.querySelector('main[data-refresh]')
  if (!main) return
  const editing = () =>
    main.contains(document.activeElement) && document.activeElement.matches('input, select, textarea') ||
    [...main.querySelectorAll('input:not([type=hidden]), textarea')].some((input) => input.value !== '') ||
    main.querySelector('details[open]') !== null
  setInterval(async () => {
    if (document.hidden || editing()) return
    try {
      const res = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
      if (!res.ok) return
      const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('main')
      if (next && !editing()) main.innerHTML = next.innerHTML
    } catch {}
  }, Number(main.dataset.refresh))
})()
`
