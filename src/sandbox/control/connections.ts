import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function connectionControl(_runtime: SandboxRuntime): Router {
  return Router()
}
