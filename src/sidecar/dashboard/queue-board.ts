import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { ExpressAdapter } from '@bull-board/express'
import type { Queue } from 'bullmq'
import { Router, type RequestHandler } from 'express'
import { WEBHOOK_EVENTS_QUEUE } from '../../queue/index.js'
import { roleAllows } from '../../users/index.js'
import { SidecarApiError } from '../api-error.js'
import { isRefusal, refusalError } from '../auth/index.js'
import type { SidecarContext } from '../context.js'

export const QUEUE_BOARD_PATH = '/admin/queues'

/** bull-board's page links Google Fonts; the board must load nothing from outside this sidecar. */
const EXTERNAL_STYLESHEET = /<link[^>]+href="https?:\/\/[^"]*"[^>]*>\s*/g

/**
 * bull-board's page is sent without any external stylesheet (its own CSS falls back to system fonts) and under a
 * CSP that allows only this origin, so nothing is fetched from elsewhere.
 */
export class SelfContainedExpressAdapter extends ExpressAdapter {
  override setEntryRoute(routeDef: Parameters<ExpressAdapter['setEntryRoute']>[0]): this {
    const router = this.getRouter() as Router
    router[routeDef.method](routeDef.route, (_req, res, next) => {
      const { name, params } = routeDef.handler({ basePath: this.basePath, uiConfig: this.uiConfig })
      res.render(name, params, (error, page) => {
        if (error) return next(error)
        res
          .set(
            'content-security-policy',
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
          )
          .type('html')
          .send(page.replace(EXTERNAL_STYLESHEET, ''))
      })
    })
    return this
  }
}

/** bull-board over the sidecar's queues, served under `basePath`; read-only: no button changes a queue. */
export function queueBoard(
  queues: readonly Queue[],
  basePath: string,
  options: { readOnly: boolean },
): Router {
  const serverAdapter = new SelfContainedExpressAdapter()
  serverAdapter.setBasePath(basePath)
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'bankrec queues' } },
  })
  const board = serverAdapter.getRouter() as Router & { disable(setting: string): unknown }
  board.disable('x-powered-by')
  return board
}

const READS = new Set(['GET', 'HEAD'])

/**
 * A request path as bull-board's router may match it: express matches case-insensitively, ignores a trailing
 * slash and decodes parameters, and a client may also double slashes or percent-encode letters. So the guard
 * compares segments that are split on any run of slashes, decoded and lower-cased (issue 26: `/ADD`, `/Add`
 * and `/add/` went past a case-sensitive pattern). Undefined when a segment does not decode: refused then.
 */
function boardPathSegments(path: string): string[] | undefined {
  try {
    return path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment).toLowerCase())
  } catch {
    return undefined
  }
}

/**
 * Board calls that put a job's content into webhook-events: adding a job, editing one's data, or anything on its
 * job schedulers (a scheduler's template is a job's data).
 */
function forgesWebhookEvent(path: string): boolean {
  const segments = boardPathSegments(path)
  if (segments === undefined) return true
  const [api, queues, queue, ...rest] = segments
  if (api !== 'api' || queues !== 'queues' || queue !== WEBHOOK_EVENTS_QUEUE.toLowerCase()) return false
  return rest[0] === 'add' || rest[0] === 'job-schedulers' || rest[1] === 'update-data'
}

/**
 * The queue board at /admin/queues for anyone signed in (Bearer token or the session cookie). The cookie only
 * ever gets the read-only board: a browser session (any role) cannot add, retry, clean or empty anything, so a
 * stolen or ridden session cannot forge a webhook event or drop accepted ones. Changing a queue takes an
 * `Authorization: Bearer` header with an admin's token, and even then webhook-events takes no job the receiver
 * did not verify: adding or editing its jobs' data is refused.
 */
export function queueBoardRoutes(context: SidecarContext): Router {
  const guard: RequestHandler = (req, res, next) => {
    context.auth.identify(req, { cookie: true }).then((identity) => {
      if (isRefusal(identity)) return next(refusalError(res, identity))
      if (!identity) return signInFirst(res)
      const admin = identity.via === 'bearer' && roleAllows(identity.actor.role, 'admin')
      if (!READS.has(req.method)) {
        if (!admin) {
          return next(
            new SidecarApiError(
              403,
              'forbidden',
              'The queue board is read-only in the browser: changing a queue needs Authorization: Bearer with ' +
                'an admin token (KIT_API_TOKEN or an admin user’s).',
            ),
          )
        }
        if (forgesWebhookEvent(req.path)) {
          return next(
            new SidecarApiError(
              403,
              'forbidden',
              `${WEBHOOK_EVENTS_QUEUE} only takes events the receiver verified: adding or editing its jobs is refused.`,
            ),
          )
        }
      }
      res.locals.boardWritable = admin
      next()
    }, next)
  }
  // The admin's board leaves its router (next('router')) for anyone else, who gets the read-only one.
  const writable = Router()
    .use((_req, res, next) => next(res.locals.boardWritable === true ? undefined : 'router'))
    .use(queueBoard(context.queues, QUEUE_BOARD_PATH, { readOnly: false }))
  const readOnly = queueBoard(context.queues, QUEUE_BOARD_PATH, { readOnly: true })
  return Router().use(QUEUE_BOARD_PATH, guard, writable, readOnly)
}

function signInFirst(res: Parameters<RequestHandler>[1]): void {
  res
    .status(401)
    .type('html')
    .send(
      '<!doctype html><meta charset="utf-8"><title>bankrec: sign in</title>' +
        '<p>The queue board needs a token. <a href="/">Sign in to the dashboard</a> first.</p>',
    )
}
