import { Router } from 'express'
import type { SandboxRuntime } from '../context.js'

export function faultControl(_runtime: SandboxRuntime): Router {
  return Router()
}
