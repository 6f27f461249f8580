import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'

/** POST /_sandbox/reset: back to the seeded start (same keys and catalog, no faults); the clock keeps its time. */
export function resetControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.post(
    '/reset',
    route((_req, res) => {
      runtime.reset()
      res.json({ reset: true, now: runtime.ctx.clock.now().toISOString() })
    }),
  )
  return router
}
