import { Router } from 'express'
import { z } from 'zod'
import { parseInput } from '../api-error.js'
import { NO_FAULTS, type FaultSettings, type SandboxRuntime } from '../context.js'
import { route } from '../http.js'

const Rate = z.number().min(0).max(1)
const Millis = z.number().int().min(0).max(60_000)

/** Strict, so a misspelt field is an error rather than a silently missing fault. Omitted fields mean no fault. */
export const FaultSettingsBody = z.strictObject({
  api: z
    .strictObject({
      errorRate: Rate.default(NO_FAULTS.api.errorRate),
      rateLimitRate: Rate.default(NO_FAULTS.api.rateLimitRate),
      retryAfterSeconds: z.number().int().min(0).max(86_400).default(NO_FAULTS.api.retryAfterSeconds),
      latencyMs: Millis.default(NO_FAULTS.api.latencyMs),
    })
    .default(NO_FAULTS.api),
  webhooks: z
    .strictObject({
      duplicateRate: Rate.default(NO_FAULTS.webhooks.duplicateRate),
      dropRate: Rate.default(NO_FAULTS.webhooks.dropRate),
      reorder: z.boolean().default(NO_FAULTS.webhooks.reorder),
      delayMs: Millis.default(NO_FAULTS.webhooks.delayMs),
    })
    .default(NO_FAULTS.webhooks),
})

/** PUT /_sandbox/faults replaces the whole fault setting; GET shows it. */
export function faultControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.get(
    '/faults',
    route((_req, res) => {
      res.json(runtime.faults)
    }),
  )
  router.put(
    '/faults',
    route((req, res) => {
      const faults: FaultSettings = structuredClone(parseInput(FaultSettingsBody, req.body, 'body'))
      runtime.setFaults(faults)
      res.json(faults)
    }),
  )
  return router
}
