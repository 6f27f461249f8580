import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function transferRoutes(_ctx: SandboxContext): Router {
  return Router()
}
