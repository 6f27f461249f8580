import { Router } from 'express'
import type { SandboxContext } from '../context.js'
import { accountRoutes } from './accounts.js'
import { balanceRoutes } from './balances.js'
import { connectionRoutes } from './connections.js'
import { institutionRoutes } from './institutions.js'
import { transactionRoutes } from './transactions.js'
import { transferRoutes } from './transfers.js'
import { webhookRoutes } from './webhooks.js'

/** Every /v1 endpoint; each file mirrors the api-client file of its resource. */
export function bankRoutes(ctx: SandboxContext): Router {
  const router = Router()
  router.use(institutionRoutes(ctx))
  router.use(connectionRoutes(ctx))
  router.use(accountRoutes(ctx))
  router.use(balanceRoutes(ctx))
  router.use(transactionRoutes(ctx))
  router.use(transferRoutes(ctx))
  router.use(webhookRoutes(ctx))
  return router
}
