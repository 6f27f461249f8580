import { setTimeout as delay } from 'node:timers/promises'
import type { z } from 'zod'
import {
  BankConnectionError,
  BankNotFoundError,
  BankTimeoutError,
  ResponseValidationError,
  errorFromResponse,
  type BankApiError,
  type BankErrorDetail,
} from './errors.js'
import { decideRetry, type AttemptOutcome } from './retry-policy.js'
import { SpanKind, failSpan, inSpan, injectTraceHeaders } from '../observability/index.js'
import { pathTemplate } from './path-template.js'
import { bodyText, jsonText } from './json-text.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** What onRequest sees before each attempt. The Authorization header is redacted; bodies are never passed. */
export type RequestEvent = {
  method: HttpMethod
  url: string
  path: string
  headers: Record<string, string>
  /** 0 for the first attempt, 1 for the first retry, … */
  attempt: number
  idempotencyKey: string | undefined
}

/** What onResponse sees after each attempt that got an answer. */
export type ResponseEvent = {
  method: HttpMethod
  url: string
  path: string
  status: number
  requestId: string | undefined
  attempt: number
  elapsedMs: number
}

/** What onAttemptEnd sees after every attempt: the endpoint as a template (`/v1/connections/{id}`), never ids. */
export type AttemptEndEvent = {
  method: HttpMethod
  route: string
  /** The answer's status; undefined when none came (`timeout`, `network`). */
  status: number | undefined
  outcome: 'answer' | 'timeout' | 'network'
  elapsedMs: number
}

export type HttpClientOptions = {
  /** e.g. `http://127.0.0.1:4010` for the sandbox; paths start with /v1. */
  baseUrl: string
  apiKey: string
  /** Per attempt, including reading the body. @defaultValue 30000 */
  timeoutMs?: number
  /** Automatic retries after the first attempt. @defaultValue 3 */
  maxRetries?: number
  /** @defaultValue globalThis.fetch (undici, keep-alive) */
  fetch?: typeof fetch
  /** Waits between retries; tests inject one that resolves at once. @defaultValue node:timers/promises setTimeout */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** Source of jitter, a number in [0, 1). @defaultValue Math.random */
  random?: () => number
  /** Wall clock for Retry-After HTTP dates. @defaultValue Date.now */
  now?: () => number
  onRequest?: (event: RequestEvent) => void
  onResponse?: (event: ResponseEvent) => void
  /** After every attempt, answered or not (latency and errors per endpoint). */
  onAttemptEnd?: (event: AttemptEndEvent) => void
}

/** Per-call options every resource method takes. */
export type CallOptions = {
  signal?: AbortSignal
  timeoutMs?: number
  maxRetries?: number
}

export type QueryValue = string | number | boolean | null | undefined

export type HttpRequest<S extends z.ZodType | undefined> = {
  method: HttpMethod
  path: string
  query?: Record<string, QueryValue>
  body?: unknown
  idempotencyKey?: string
  /** Parses the success body; undefined ignores it (e.g. DELETE). */
  schema: S
  /**
   * DELETE is idempotent: when an earlier attempt got no usable answer (it may have taken effect) and a retry
   * answers 404, the resource is gone as asked and the call succeeds.
   */
  notFoundAfterRetryIsSuccess?: boolean
  options?: CallOptions | undefined
}

export type HttpClient = {
  request<S extends z.ZodType | undefined>(
    request: HttpRequest<S>,
  ): Promise<S extends z.ZodType ? z.output<S> : void>
}

const REDACTED = '[redacted]'

/** The only place the client calls fetch. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const {
    apiKey,
    timeoutMs = 30_000,
    maxRetries = 3,
    fetch: fetchFn = globalThis.fetch,
    sleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, signal ? { signal } : undefined),
    random = Math.random,
    now = Date.now,
    onRequest,
    onResponse,
    onAttemptEnd,
  } = options
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const serverAddress = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : baseUrl
  // Servers and proxies sometimes echo what they were sent: the key must never reach a message.
  const redact = (text: string) => (apiKey ? text.split(apiKey).join(REDACTED) : text)

  async function request<S extends z.ZodType | undefined>(req: HttpRequest<S>) {
    const url = baseUrl + req.path + queryString(req.query)
    const headers: Record<string, string> = { accept: 'application/json' }
    if (req.body !== undefined) headers['content-type'] = 'application/json'
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey
    const body = req.body === undefined ? undefined : JSON.stringify(req.body)
    const callMaxRetries = req.options?.maxRetries ?? maxRetries
    const callTimeoutMs = req.options?.timeoutMs ?? timeoutMs
    const signal = req.options?.signal
    let ambiguousEarlierAttempt = false

    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted()
      onRequest?.({
        method: req.method,
        url,
        path: req.path,
        headers: { ...headers, authorization: `Bearer ${REDACTED}` },
        attempt,
        idempotencyKey: req.idempotencyKey,
      })
      const started = now()
      const route = pathTemplate(req.path)
      // One client span per attempt (OpenTelemetry's HTTP conventions), its traceparent sent to the bank.
      const result = await inSpan(
        `${req.method} ${route}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': req.method,
            'url.template': route,
            'server.address': serverAddress,
            ...(attempt > 0 ? { 'http.request.resend_count': attempt } : {}),
          },
        },
        async (span) => {
          const sent = { ...headers, authorization: `Bearer ${apiKey}` }
          injectTraceHeaders(sent)
          const answer = await attemptOnce(url, req.method, sent, body, { timeoutMs: callTimeoutMs, signal })
          if (answer.kind === 'answer') {
            span.setAttribute('http.response.status_code', answer.response.status)
            if (answer.response.status >= 400) failSpan(span, new Error(`HTTP ${answer.response.status}`))
          } else failSpan(span, answer.error)
          onAttemptEnd?.({
            method: req.method,
            route,
            status: answer.kind === 'answer' ? answer.response.status : undefined,
            outcome:
              answer.kind === 'answer'
                ? 'answer'
                : answer.error instanceof BankTimeoutError
                  ? 'timeout'
                  : 'network',
            elapsedMs: now() - started,
          })
          return answer
        },
      )
      let error: BankApiError
      let outcome: AttemptOutcome
      if (result.kind === 'answer') {
        const requestId = result.response.headers.get('request-id') ?? undefined
        onResponse?.({
          method: req.method,
          url,
          path: req.path,
          status: result.response.status,
          requestId,
          attempt,
          elapsedMs: now() - started,
        })
        if (result.response.ok) return parseSuccess(req.schema, result.body, result.response, requestId)
        // Redacted before parsing, so nothing built from the body (message, details, stack) can hold the key.
        error = errorFromResponse(
          result.response.status,
          parseJson(redact(bodyText(result.body))),
          result.response.headers,
          now(),
        )
        if (
          req.notFoundAfterRetryIsSuccess &&
          ambiguousEarlierAttempt &&
          error instanceof BankNotFoundError
        ) {
          return undefined as never
        }
        outcome = {
          kind: 'response',
          status: error.status!,
          code: error.code,
          retryAfterMs: error.retryAfterMs,
        }
        ambiguousEarlierAttempt ||= error.status! >= 500
      } else {
        error = result.error
        outcome = { kind: error instanceof BankTimeoutError ? 'timeout' : 'network' }
        ambiguousEarlierAttempt = true
      }
      const decision = decideRetry({
        method: req.method,
        path: req.path,
        hasIdempotencyKey: req.idempotencyKey !== undefined,
        outcome,
        retriesSoFar: attempt,
        maxRetries: callMaxRetries,
        random: random(),
      })
      if (!decision.retry) throw error
      await sleep(decision.delayMs, signal)
    }
  }

  type AttemptResult =
    { kind: 'answer'; response: Response; body: Buffer } | { kind: 'failed'; error: BankConnectionError }

  async function attemptOnce(
    url: string,
    method: HttpMethod,
    headers: Record<string, string>,
    body: string | undefined,
    { timeoutMs, signal }: { timeoutMs: number; signal: AbortSignal | undefined },
  ): Promise<AttemptResult> {
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    try {
      const response = await fetchFn(url, {
        method,
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
      })
      // The timeout covers the body too: a server that stalls mid-body is as stuck as one that never answers.
      const answered = Buffer.from(await response.arrayBuffer())
      return { kind: 'answer', response, body: answered }
    } catch (cause) {
      if (signal?.aborted) throw signal.reason
      if (timeout.signal.aborted) {
        return {
          kind: 'failed',
          error: new BankTimeoutError({
            code: 'timeout',
            message: `No answer from ${method} ${new URL(url).pathname} within ${timeoutMs} ms; it may or may not have taken effect.`,
          }),
        }
      }
      return {
        kind: 'failed',
        error: new BankConnectionError({
          code: 'connection_error',
          message: `Could not reach the Bank Connectivity Service for ${method} ${new URL(url).pathname}: ${redact(describe(cause))}. It may or may not have taken effect.`,
        }),
      }
    } finally {
      clearTimeout(timer)
    }
  }

  function parseSuccess(schema: z.ZodType | undefined, body: Buffer, response: Response, requestId?: string) {
    if (schema === undefined) return undefined
    const json = parseJson(jsonText(body))
    if (json === NOT_JSON) {
      throw new ResponseValidationError({
        message: `The ${response.status} answer is not JSON.`,
        status: response.status,
        requestId,
        path: '',
      })
    }
    const result = schema.safeParse(json)
    if (result.success) return result.data
    const details: BankErrorDetail[] = result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    }))
    const first = details[0]!
    throw new ResponseValidationError({
      message: `The ${response.status} answer does not match the API contract at ${first.path || '(root)'}: ${first.message}`,
      status: response.status,
      requestId: (json as { meta?: { requestId?: string } } | null)?.meta?.requestId ?? requestId,
      details,
      path: first.path,
    })
  }

  return { request: request as HttpClient['request'] }
}

const NOT_JSON = Symbol('not json')

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value))
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** undici reports the real reason (ECONNRESET, ECONNREFUSED, …) in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause
  const code = cause && typeof cause === 'object' && 'code' in cause ? String(cause.code) : undefined
  return code ? `${error.message} (${code})` : error.message
}
