import { randomBytes } from 'node:crypto'
import { Router } from 'express'
import type { SidecarContext } from '../runtime.js'
import { ADMIN_COOKIE, bearerOf, requireAdminToken, tokenMatches } from './admin-token.js'
import { renderDashboardPage } from './dashboard-page.js'
import { queueBoard } from './queue-board.js'

const QUEUE_BOARD_PATH = '/admin/queues'

/**
 * GET / and /dashboard (the page holds no data: its script reads /api with the token saved in the browser),
 * POST/DELETE /admin/session (the token as an HttpOnly cookie for the /admin pages) and the queue board.
 */
export function dashboardRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(['/', '/dashboard'], (_req, res) => {
    const nonce = randomBytes(16).toString('base64')
    res
      .set({
        'content-security-policy': `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'`,
        'cache-control': 'no-store',
      })
      .type('html')
      .send(renderDashboardPage({ nonce, sandbox: context.bank.sandbox !== undefined }))
  })
  router.post('/admin/session', (req, res) => {
    if (!tokenMatches(bearerOf(req.headers.authorization), context.apiToken)) {
      res.status(401).json({
        error: {
          code: 'unauthorized',
          message: 'Send KIT_API_TOKEN as Authorization: Bearer <token>.',
          requestId: String(res.locals.requestId ?? ''),
        },
      })
      return
    }
    res.cookie(ADMIN_COOKIE, context.apiToken, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/admin',
      secure: req.secure,
    })
    res.status(204).end()
  })
  router.delete('/admin/session', (_req, res) => {
    res.clearCookie(ADMIN_COOKIE, { path: '/admin' }).status(204).end()
  })
  router.use(
    QUEUE_BOARD_PATH,
    requireAdminToken(context.apiToken),
    queueBoard(context.queues, QUEUE_BOARD_PATH),
  )
  return router
}
