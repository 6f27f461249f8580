import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function webhookControl(_runtime: SandboxRuntime): Router {
  return Router()
}
