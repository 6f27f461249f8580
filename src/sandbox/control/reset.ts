import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function resetControl(_runtime: SandboxRuntime): Router {
  return Router()
}
