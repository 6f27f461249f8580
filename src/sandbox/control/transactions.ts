import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function transactionControl(_runtime: SandboxRuntime): Router {
  return Router()
}
