import type { RequestHandler } from 'express'
import { ApiError } from '../api-error.js'
import type { SandboxContext } from '../context.js'

/** The header a script sends to say it means to drive the control API (any value). */
export const CONTROL_HEADER = 'sandbox-control'

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * A control call that changes the bank (reset, flush, faults, clock…) needs the Sandbox-Control header or a
 * sandbox API key. A web page in the browser of someone running the sandbox can POST to 127.0.0.1 as a "simple"
 * request, but it cannot add a header or know a key without a CORS preflight, which the sandbox never grants.
 */
export function requireControlIntent(ctx: SandboxContext): RequestHandler {
  return (req, _res, next) => {
    if (READS.has(req.method) || req.headers[CONTROL_HEADER] !== undefined) return next()
    const key = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1]
    if (key !== undefined && ctx.state.apiKeys.has(key)) return next()
    next(
      new ApiError(
        403,
        'control_intent_required',
        `Control calls that change the sandbox need the ${CONTROL_HEADER} header (any value) or a sandbox API key as Authorization: Bearer <key>.`,
      ),
    )
  }
}
