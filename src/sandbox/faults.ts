import type { RequestHandler } from 'express'
import type { SandboxRuntime } from './context.js'

export function injectApiFaults(_runtime: SandboxRuntime): RequestHandler {
  return (_req, _res, next) => next()
}
