import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'
import { clockControl } from './clock.js'
import { connectionControl } from './connections.js'
import { controlIndex } from './control-index.js'
import { dialectControl } from './dialect.js'
import { faultControl } from './faults.js'
import { requireControlIntent } from './require-control-intent.js'
import { resetControl } from './reset.js'
import { stateControl } from './state.js'
import { transactionControl } from './transactions.js'
import { transferControl } from './transfers.js'
import { webhookControl } from './webhooks.js'

/**
 * The control API under /_sandbox: no bank API key needed to read, the Sandbox-Control header or a key to change
 * anything, never touched by injected faults.
 */
export function controlRoutes(runtime: SandboxRuntime): Router {
  const router = Router()
  router.use(requireControlIntent(runtime.ctx))
  router.use(controlIndex())
  router.use(clockControl(runtime))
  router.use(connectionControl(runtime))
  router.use(transactionControl(runtime))
  router.use(transferControl(runtime))
  router.use(faultControl(runtime))
  router.use(dialectControl(runtime))
  router.use(webhookControl(runtime))
  router.use(stateControl(runtime))
  router.use(resetControl(runtime))
  return router
}
