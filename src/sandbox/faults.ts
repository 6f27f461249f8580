import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { ApiError } from './api-error.js'
import type { FaultSettings, SandboxRuntime } from './context.js'
import { requestIdOf } from './http.js'
import type { Random } from './random.js'

/** Response header naming the injected fault, for people and tests reading a trace; clients must not rely on it. */
export const FAULT_HEADER = 'Sandbox-Fault'

/**
 * What an injected error does:
 * - `error_before`: a 500/502/503 answered before the request is handled (no effect);
 * - `error_after`: the request takes effect, then its answer is replaced by a 500;
 * - `connection_dropped`: the request takes effect, then the connection is closed without an answer.
 */
export type ApiFaultKind = 'error_before' | 'error_after' | 'connection_dropped' | 'rate_limited'

/**
 * The fault for one request. Three draws per request whatever the outcome, so the n-th request of a run meets
 * the same fault every time the same seed and setting are used.
 */
export function drawApiFault(
  settings: FaultSettings['api'],
  random: Random,
): { kind: ApiFaultKind; status: number } | undefined {
  const errorDraw = random.next()
  const shapeDraw = random.next()
  const rateLimitDraw = random.next()
  if (errorDraw < settings.errorRate) {
    // Half the errors come before any effect, a quarter after it with a 500, a quarter as a dropped connection.
    if (shapeDraw < 0.5) return { kind: 'error_before', status: [500, 502, 503][Math.floor(shapeDraw * 6)]! }
    if (shapeDraw < 0.75) return { kind: 'error_after', status: 500 }
    return { kind: 'connection_dropped', status: 0 }
  }
  if (rateLimitDraw < settings.rateLimitRate) return { kind: 'rate_limited', status: 429 }
  return undefined
}

/** Injects the configured API faults into /v1 requests (mounted only there, so /_sandbox is never affected). */
export function injectApiFaults(runtime: SandboxRuntime): RequestHandler {
  let seen: FaultSettings | undefined
  let random: Random | undefined
  return async function injectApiFault(req: Request, res: Response, next: NextFunction) {
    const faults = runtime.faults
    // A new setting restarts the random sequence, so the same seed and setting repeat the same faults.
    if (faults !== seen || !random) {
      seen = faults
      random = runtime.ctx.random.fork('api-faults')
    }
    const { api } = faults
    const fault = drawApiFault(api, random)
    if (api.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, api.latencyMs))
    if (!fault) return next()
    res.setHeader(FAULT_HEADER, fault.kind)
    switch (fault.kind) {
      case 'rate_limited':
        return next(
          new ApiError(
            429,
            'rate_limited',
            'Too many requests; retry after the Retry-After interval.',
            undefined,
            {
              'Retry-After': String(api.retryAfterSeconds),
            },
          ),
        )
      case 'error_before':
        return next(
          fault.status === 500
            ? new ApiError(500, 'internal_error', 'The service failed to handle the request; retry it.')
            : new ApiError(
                fault.status,
                'service_unavailable',
                'The service is temporarily unavailable; retry it.',
              ),
        )
      case 'error_after':
        loseAnswer(res, (end) => answerLostError(res, end))
        return next()
      case 'connection_dropped':
        loseAnswer(res, () => req.socket.destroy())
        return next()
    }
  }
}

/** Lets the handler run to completion, then replaces whatever it answers. */
function loseAnswer(res: Response, instead: (end: (body: string) => void) => void): void {
  const end = res.end.bind(res)
  res.end = function endLost() {
    instead((body) => end(body))
    return res
  } as Response['end']
}

function answerLostError(res: Response, end: (body: string) => void): void {
  const body = JSON.stringify({
    error: {
      code: 'internal_error',
      message: 'The service failed while answering; the request may have taken effect.',
      requestId: requestIdOf(res),
    },
  })
  for (const name of res.getHeaderNames()) {
    if (name !== 'request-id' && name !== FAULT_HEADER.toLowerCase()) res.removeHeader(name)
  }
  res.statusCode = 500
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('content-length', Buffer.byteLength(body))
  end(body)
}
