import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function institutionRoutes(_ctx: SandboxContext): Router {
  return Router()
}
