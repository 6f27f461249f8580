import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function accountRoutes(_ctx: SandboxContext): Router {
  return Router()
}
