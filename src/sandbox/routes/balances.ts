import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function balanceRoutes(_ctx: SandboxContext): Router {
  return Router()
}
