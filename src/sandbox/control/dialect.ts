import { Router } from 'express'
import { z } from 'zod'
import { parseInput } from '../api-error.js'
import type { SandboxRuntime } from '../context.js'
import { SANDBOX_DIALECTS } from '../dialects.js'
import { route } from '../http.js'

const DialectBody = z.strictObject({ name: z.enum(SANDBOX_DIALECTS) })

/**
 * GET /_sandbox/dialect shows the wire dialect, PUT switches it: later sync pages and later webhook deliveries
 * speak the new one (deliveries already queued keep the body they were queued with).
 */
export function dialectControl(runtime: SandboxRuntime): Router {
  const router = Router()
  const show = () => ({ name: runtime.ctx.settings.dialect, available: SANDBOX_DIALECTS })
  router.get(
    '/dialect',
    route((_req, res) => {
      res.json(show())
    }),
  )
  router.put(
    '/dialect',
    route((req, res) => {
      runtime.ctx.settings.dialect = parseInput(DialectBody, req.body, 'body').name
      res.json(show())
    }),
  )
  return router
}
