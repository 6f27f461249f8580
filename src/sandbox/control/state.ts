import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function stateControl(_runtime: SandboxRuntime): Router {
  return Router()
}
