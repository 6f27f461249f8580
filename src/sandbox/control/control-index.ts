import { Router } from 'express'

/** Every control call, as docs/sandbox.md lists them: what GET /_sandbox answers, so the printed address leads on. */
export const CONTROL_ENDPOINTS = [
  'GET /_sandbox/clock',
  'POST /_sandbox/clock/advance',
  'POST /_sandbox/connections/{id}/status',
  'POST /_sandbox/connections/{id}/transactions',
  'PATCH /_sandbox/transactions/{id}',
  'DELETE /_sandbox/transactions/{id}',
  'POST /_sandbox/transfers/{id}/outcome',
  'GET /_sandbox/faults',
  'PUT /_sandbox/faults',
  'GET /_sandbox/dialect',
  'PUT /_sandbox/dialect',
  'POST /_sandbox/webhooks/flush',
  'GET /_sandbox/webhooks/deliveries',
  'GET /_sandbox/state',
  'POST /_sandbox/reset',
] as const

/** GET /_sandbox: the control API's calls and how to make a changing one. */
export function controlIndex(): Router {
  const router = Router()
  router.get('/', (_req, res) => {
    res.json({
      description:
        'Control API of the Bank Connectivity Service sandbox. Calls that change it need the Sandbox-Control header (any value) or a sandbox API key as Authorization: Bearer <key>. The bank API itself is under /v1.',
      endpoints: CONTROL_ENDPOINTS,
      documentation: 'docs/sandbox.md#control-api-_sandbox',
    })
  })
  return router
}
