import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function webhookRoutes(_ctx: SandboxContext): Router {
  return Router()
}
