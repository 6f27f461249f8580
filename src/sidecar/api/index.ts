import { Router } from 'express'
import type { SidecarContext } from '../runtime.js'
import { connectionRoutes } from './connections.js'

/** Every /api route; each file holds one resource. */
export function apiRoutes(context: SidecarContext): Router {
  const router = Router()
  router.use(connectionRoutes(context))
  return router
}
