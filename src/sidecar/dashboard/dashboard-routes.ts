import express, { Router, type Request, type RequestHandler, type Response } from 'express'
import { z } from 'zod'
import { handle } from '../api-error.js'
import type { SidecarContext } from '../runtime.js'
import {
  bearerOf,
  closeSession,
  isSignedIn,
  openSession,
  requireAdminToken,
  tokenMatches,
} from './admin-token.js'
import { dashboardActions, sameOrigin, safeBack } from './dashboard-actions.js'
import { loadExceptions, renderExceptions } from './exceptions-page.js'
import { html, type SafeHtml } from './html.js'
import { loadInvoice, loadInvoices, renderInvoice, renderInvoices } from './invoices-page.js'
import { loadOverview, renderOverview } from './overview-page.js'
import { sendPage } from './page-response.js'
import { queueBoard } from './queue-board.js'
import { renderSignIn } from './signin-page.js'

const QUEUE_BOARD_PATH = '/admin/queues'

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined)

const SignIn = z.object({ token: z.string().trim().max(1000), next: z.string().max(2000).optional() })

/**
 * The dashboard: server-rendered pages behind a session cookie opened with KIT_API_TOKEN (/, /dashboard,
 * /dashboard/exceptions, /dashboard/invoices[/{id}]), their form actions, POST/DELETE /admin/session (the cookie
 * for a Bearer-token holder) and the queue board at /admin/queues.
 */
export function dashboardRoutes(context: SidecarContext): Router {
  const router = Router()
  const token = context.apiToken

  /** A page for a signed-in browser; anyone else gets the sign-in form (401), which comes back here. */
  const page = (
    current: 'overview' | 'exceptions' | 'invoices',
    build: (req: Request) => Promise<{ title: string; body: SafeHtml } | undefined>,
  ): RequestHandler =>
    handle(async (req: Request, res: Response) => {
      if (!isSignedIn(req, token)) return signIn(req, res, req.originalUrl, false)
      const built = await build(req)
      if (!built) {
        return sendPage(req, res, context, { title: 'Not found', current, body: renderNotFound() }, 404)
      }
      sendPage(req, res, context, { ...built, current, refresh: true })
    })

  const signIn = (req: Request, res: Response, next: string, refused: boolean) =>
    sendPage(req, res, context, { title: 'Sign in', body: renderSignIn(safeBack(next), refused) }, 401)

  router.get(
    ['/', '/dashboard'],
    page('overview', async (req) => ({
      title: 'Overview',
      body: renderOverview(await loadOverview(context, text(req.query.currency))),
    })),
  )
  router.get(
    '/dashboard/exceptions',
    page('exceptions', async (req) => ({
      title: 'Exceptions',
      body: renderExceptions(
        await loadExceptions(context, { type: text(req.query.type), after: text(req.query.after) }),
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
    page('invoices', async (req) => {
      const data = await loadInvoice(context, String(req.params.id))
      return data && { title: `Invoice ${data.invoice.number}`, body: renderInvoice(data) }
    }),
  )

  const form = express.urlencoded({ extended: false, limit: '16kb' })
  router.post('/dashboard/login', sameOrigin, form, (req, res) => {
    const parsed = SignIn.safeParse(req.body ?? {})
    const next = safeBack(parsed.data?.next)
    if (!parsed.success || !tokenMatches(parsed.data.token, token)) return signIn(req, res, next, true)
    openSession(req, res, token)
    res.redirect(303, next)
  })
  router.post('/dashboard/logout', sameOrigin, (_req, res) => {
    closeSession(res)
    res.redirect(303, '/')
  })
  router.use('/dashboard', sameOrigin, form, dashboardActions(context))

  // For scripts and API clients holding the token: the same session cookie, opened with a Bearer header.
  router.post('/admin/session', (req, res) => {
    if (!tokenMatches(bearerOf(req.headers.authorization), token)) {
      res.status(401).json({
        error: {
          code: 'unauthorized',
          message: 'Send KIT_API_TOKEN as Authorization: Bearer <token>.',
          requestId: String(res.locals.requestId ?? ''),
        },
      })
      return
    }
    openSession(req, res, token)
    res.status(204).end()
  })
  router.delete('/admin/session', (_req, res) => {
    closeSession(res)
    res.status(204).end()
  })
  router.use(QUEUE_BOARD_PATH, requireAdminToken(token), queueBoard(context.queues, QUEUE_BOARD_PATH))
  return router
}

function renderNotFound(): SafeHtml {
  return html`<section class="wide">
    <h2>Not found</h2>
    <p>Nothing here. <a href="/dashboard">Back to the overview</a>.</p>
  </section>`
}
