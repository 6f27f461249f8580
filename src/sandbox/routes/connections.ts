import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function connectionRoutes(_ctx: SandboxContext): Router {
  return Router()
}
