import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function transferControl(_runtime: SandboxRuntime): Router {
  return Router()
}
