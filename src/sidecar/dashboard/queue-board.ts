import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { ExpressAdapter } from '@bull-board/express'
import type { Queue } from 'bullmq'
import type { Router } from 'express'

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

/** bull-board over the sidecar's queues, served under `basePath`. */
export function queueBoard(queues: readonly Queue[], basePath: string): Router {
  const serverAdapter = new SelfContainedExpressAdapter()
  serverAdapter.setBasePath(basePath)
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'bankrec queues' } },
  })
  const board = serverAdapter.getRouter() as Router & { disable(setting: string): unknown }
  board.disable('x-powered-by')
  return board
}
