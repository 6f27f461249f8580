import { Router } from 'express'
import type { SandboxContext } from '../context.js'

export function transactionRoutes(_ctx: SandboxContext): Router {
  return Router()
}
