import { Router } from 'express'
import { z } from 'zod'
import { parseInput } from '../api-error.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'

const AdvanceBody = z.object({
  seconds: z
    .number()
    .finite()
    .min(0)
    .max(10 * 365 * 86400),
})

export function clockControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.get(
    '/clock',
    route((_req, res) => {
      res.json({
        now: runtime.ctx.clock.now().toISOString(),
        offsetSeconds: runtime.ctx.clock.offsetMs() / 1000,
      })
    }),
  )
  router.post(
    '/clock/advance',
    route(async (req, res) => {
      const { seconds } = parseInput(AdvanceBody, req.body, 'body')
      runtime.ctx.clock.advance(seconds)
      await runtime.catchUp()
      res.json({
        now: runtime.ctx.clock.now().toISOString(),
        offsetSeconds: runtime.ctx.clock.offsetMs() / 1000,
      })
    }),
  )
  return router
}
