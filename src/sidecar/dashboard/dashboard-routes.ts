import express, { Router, type Request, type RequestHandler, type Response } from 'express'
import { z } from 'zod'
import { roleAllows, type Actor } from '../../users/index.js'
import { handle } from '../api-error.js'
import {
  closeSession,
  isRefusal,
  openSession,
  refusalError,
  SESSION_COOKIE,
  UNAUTHORIZED,
  type AuthRefusal,
} from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { bearerOf } from '../token-matches.js'
import { dashboardActions, sameOrigin, safeBack } from './dashboard-actions.js'
import { loadActivity, renderActivity } from './activity-page.js'
import { loadApprovals, renderApprovals } from './approvals-page.js'
import { loadExceptions, renderExceptions } from './exceptions-page.js'
import { html, type SafeHtml } from './html.js'
import { loadInvoice, loadInvoices, renderInvoice, renderInvoices } from './invoices-page.js'
import { loadOverview, renderOverview } from './overview-page.js'
import { loadCharts, renderCharts } from './charts-page.js'
import { OPEN_INVOICE_SEARCH } from './invoice-typeahead.js'
import { loadPayments, renderPayments } from './payments-page.js'
import { findOpenInvoices } from '../api/payments.js'
import { sendPage } from './page-response.js'
import { queueBoardRoutes } from './queue-board.js'
import { renderSignIn } from './signin-page.js'
import { loadTrust, renderTrust } from './trust-page.js'

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined)

const SignIn = z.object({ token: z.string().trim().max(1000), next: z.string().max(2000).optional() })

/**
 * The dashboard: server-rendered pages behind a session cookie opened with KIT_API_TOKEN or a user's token (/,
 * /dashboard, /dashboard/exceptions, /dashboard/invoices[/{id}]), their form actions, POST/DELETE /admin/session
 * (the cookie for a Bearer-token holder) and the queue board at /admin/queues.
 */
export function dashboardRoutes(context: SidecarContext): Router {
  const router = Router()

  /** A page for a signed-in browser; anyone else gets the sign-in form (401), which comes back here. */
  const page = (
    current:
      'overview' | 'exceptions' | 'invoices' | 'activity' | 'trust' | 'approvals' | 'payments' | 'charts',
    build: (req: Request, actor: Actor) => Promise<{ title: string; body: SafeHtml } | undefined>,
  ): RequestHandler =>
    handle(async (req: Request, res: Response) => {
      const identity = await context.auth.identify(req, { cookie: true })
      if (!identity || isRefusal(identity)) {
        // A cookie that opens nothing any more (a new token, a removed user) is dropped, not sent again.
        if (req.headers.cookie?.includes(`${SESSION_COOKIE}=`)) closeSession(res)
        return signIn(req, res, req.originalUrl, identity)
      }
      const { actor } = identity
      const built = await build(req, actor)
      if (!built) {
        return sendPage(
          req,
          res,
          context,
          { title: 'Not found', current, actor, body: renderNotFound() },
          404,
        )
      }
      sendPage(req, res, context, { ...built, current, actor, refresh: true })
    })

  const signIn = (req: Request, res: Response, next: string, refusal: AuthRefusal | undefined) =>
    sendPage(
      req,
      res,
      context,
      { title: 'Sign in', body: renderSignIn(safeBack(next), refusal ? refusalText(refusal) : null) },
      refusal?.status ?? 401,
    )

  const clerk = (actor: Actor) => roleAllows(actor.role, 'clerk')
  router.get(
    ['/', '/dashboard'],
    page('overview', async (req, actor) => ({
      title: 'Overview',
      body: renderOverview(await loadOverview(context, text(req.query.currency)), { canAct: clerk(actor) }),
    })),
  )
  router.get(
    '/dashboard/exceptions',
    page('exceptions', async (req, actor) => ({
      title: 'Exceptions',
      body: renderExceptions(
        await loadExceptions(context, {
          type: text(req.query.type),
          after: text(req.query.after),
          transaction: text(req.query.transaction),
        }),
        { canAct: clerk(actor) },
      ),
    })),
  )
  router.get(
    '/dashboard/invoices',
    page('invoices', async (req) => ({
      title: 'Invoices',
      body: renderInvoices(
        await loadInvoices(context, {
          status: text(req.query.status),
          customer: text(req.query.customer),
          cursor: text(req.query.cursor),
        }),
      ),
    })),
  )
  router.get(
    '/dashboard/invoices/:id',
    page('invoices', async (req, actor) => {
      const data = await loadInvoice(context, String(req.params.id))
      return (
        data && {
          title: `Invoice ${data.invoice.number}`,
          body: renderInvoice(data, { canAct: clerk(actor) }),
        }
      )
    }),
  )

  router.get(
    '/dashboard/activity',
    page('activity', async (req) => ({
      title: 'Activity',
      body: renderActivity(
        await loadActivity(context, { actor: text(req.query.actor), before: text(req.query.before) }),
      ),
    })),
  )

  router.get(
    '/dashboard/trust',
    page('trust', async (req, actor) => ({
      title: 'Trust report',
      body: renderTrust(
        await loadTrust(
          context,
          { from: text(req.query.from), to: text(req.query.to) },
          roleAllows(actor.role, 'admin'),
        ),
      ),
    })),
  )

  router.get(
    '/dashboard/approvals',
    page('approvals', async (_req, actor) => ({
      title: 'Approvals',
      body: renderApprovals(await loadApprovals(context), { canDecide: roleAllows(actor.role, 'approver') }),
    })),
  )

  router.get(
    '/dashboard/payments',
    page('payments', async (req, actor) => ({
      title: 'Payments',
      body: renderPayments(await loadPayments(context, req.query), {
        canAct: clerk(actor),
        back: safeBack(req.originalUrl),
      }),
    })),
  )
  router.get(
    '/dashboard/charts',
    page('charts', async (req) => ({
      title: 'Charts',
      body: renderCharts(await loadCharts(context, text(req.query.currency))),
    })),
  )
  // The manual-match typeahead's search, for the signed-in browser (the API takes a Bearer token, not the cookie).
  router.get(
    OPEN_INVOICE_SEARCH,
    handle(async (req, res) => {
      const identity = await context.auth.identify(req, { cookie: true })
      if (!identity || isRefusal(identity)) throw refusalError(res, identity ?? UNAUTHORIZED)
      res.json(await findOpenInvoices(context, req.query))
    }),
  )

  const form = express.urlencoded({ extended: false, limit: '16kb' })
  router.post(
    '/dashboard/login',
    sameOrigin,
    form,
    handle(async (req, res) => {
      const parsed = SignIn.safeParse(req.body ?? {})
      const next = safeBack(parsed.data?.next)
      if (!parsed.success) return signIn(req, res, next, UNAUTHORIZED)
      const signedIn = await context.auth.signIn(req, parsed.data.token)
      if (isRefusal(signedIn)) {
        if (signedIn.retryAfterSeconds !== undefined) res.setHeader('retry-after', signedIn.retryAfterSeconds)
        return signIn(req, res, next, signedIn)
      }
      openSession(req, res, signedIn.session)
      res.redirect(303, next)
    }),
  )
  // The sign-in link (`#token=`) asks before it signs anyone in (issue 26, login CSRF: a link made by someone else
  // signed a browser in as them): the page shows whose token it holds, from here, and waits for the button. A
  // token that is nobody's counts as a failed attempt, as on the form; no session is opened.
  router.post(
    '/dashboard/login/holder',
    sameOrigin,
    form,
    handle(async (req, res) => {
      const parsed = SignIn.safeParse(req.body ?? {})
      const holder = parsed.success ? await context.auth.signIn(req, parsed.data.token) : UNAUTHORIZED
      if (isRefusal(holder)) throw refusalError(res, holder)
      res.json({ name: holder.actor.name, role: holder.actor.role })
    }),
  )
  router.post('/dashboard/logout', sameOrigin, (_req, res) => {
    closeSession(res)
    res.redirect(303, '/')
  })
  // A pasted or uploaded remittance advice is larger than a form's fields: its own limit, like an API body's.
  router.post(
    '/dashboard/transactions/:id/remittance',
    sameOrigin,
    express.urlencoded({ extended: false, limit: '10mb' }),
  )
  router.use('/dashboard', sameOrigin, form, dashboardActions(context))

  // For scripts and API clients holding a token: the same session cookie, opened with a Bearer header.
  router.post(
    '/admin/session',
    handle(async (req, res) => {
      const token = bearerOf(req.headers.authorization)
      const signedIn = token === undefined ? UNAUTHORIZED : await context.auth.signIn(req, token)
      if (isRefusal(signedIn)) throw refusalError(res, signedIn)
      openSession(req, res, signedIn.session)
      res.status(204).end()
    }),
  )
  router.delete('/admin/session', (_req, res) => {
    closeSession(res)
    res.status(204).end()
  })
  router.use(queueBoardRoutes(context))
  return router
}

function refusalText(refusal: AuthRefusal): string {
  return refusal.status === 429 ? refusal.message : 'That token was refused.'
}

function renderNotFound(): SafeHtml {
  return html`<section class="wide">
    <h2>Not found</h2>
    <p>Nothing here. <a href="/dashboard">Back to the overview</a>.</p>
  </section>`
}
