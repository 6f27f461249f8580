import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createVirtualClock, type VirtualClock } from '../clock/index.js'
import { authenticate } from './auth.js'
import {
  NO_FAULTS,
  type FaultSettings,
  type SandboxContext,
  type SandboxRuntime,
  type SandboxSettings,
} from './context.js'
import { controlRoutes } from './control/index.js'
import { injectApiFaults } from './faults.js'
import { answerError, answerUnknownRoute, assignRequestId } from './http.js'
import { createRandom } from './random.js'
import { bankRoutes } from './routes/index.js'
import { createScheduler } from './scheduler.js'
import { seedState } from './seed-state.js'
import type { ApiKeyRecord } from './state.js'
import { createSyncNotices } from './sync-notices.js'
import { createWebhookDispatcher } from './webhook-dispatcher.js'

export type SandboxOptions = Partial<SandboxSettings> & {
  /** @defaultValue a virtual clock starting at the real time and following it */
  clock?: VirtualClock
  /** The full-scope test key of the main organization. @defaultValue derived from the seed */
  apiKey?: string
  /** Used for webhook deliveries. @defaultValue globalThis.fetch */
  fetch?: typeof fetch
}

export type Sandbox = {
  readonly ctx: SandboxContext
  readonly runtime: SandboxRuntime
  readonly app: express.Express
  readonly clock: VirtualClock
  /** The main organization's full-scope test key. */
  readonly apiKey: string
  /** Every seeded key with its label, organization and scopes. */
  apiKeys(): ApiKeyRecord[]
  /** Base URL once listening, e.g. http://127.0.0.1:4010. */
  readonly url: string | undefined
  listen(options?: { port?: number; host?: string }): Promise<string>
  close(): Promise<void>
  /** Moves the virtual clock forward and lets the bank catch up (due tasks run, due deliveries go out). */
  advance(seconds: number): Promise<void>
  flushWebhooks(): Promise<void>
  reset(): void
}

export const DEFAULT_SETTINGS: SandboxSettings = {
  seed: 42,
  allowHttpWebhooks: false,
  syncAvailableDelaySeconds: 1,
  scheduledSyncIntervalSeconds: 4 * 3600,
  syncDurationSeconds: 5,
  activationSeconds: 10,
  syncCooldownSeconds: 45 * 60,
  transferApprovalThreshold: '100000.00',
  transferStepSeconds: 5,
}

/** A stateful, deterministic Bank Connectivity Service, in-process. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const { clock = createVirtualClock(), apiKey, fetch: fetchFn = globalThis.fetch, ...overrides } = options
  const settings: SandboxSettings = { ...DEFAULT_SETTINGS, ...stripUndefined(overrides) }
  const random = createRandom(settings.seed)
  const scheduler = createScheduler(clock)
  let faults: FaultSettings = structuredClone(NO_FAULTS)

  const ctx: SandboxContext = {
    state: seedState(random.fork('state'), { apiKey, now: clock.now() }),
    clock,
    random: random.fork('bank'),
    scheduler,
    settings,
    emitEvent: (orgId, type, data) => dispatcher.emitEvent(orgId, type, data),
    noteTransactionsChanged: (connectionId) => syncNotices.note(connectionId),
  }
  const dispatcher = createWebhookDispatcher(ctx, { fetch: fetchFn, faults: () => faults })
  const syncNotices = createSyncNotices(ctx)

  const runtime: SandboxRuntime = {
    ctx,
    get faults() {
      return faults
    },
    setFaults: (next) => {
      faults = next
    },
    catchUp: async () => {
      scheduler.runDue()
      await dispatcher.deliverDue()
    },
    flushWebhooks: async () => {
      scheduler.runDue()
      syncNotices.sendAll()
      await dispatcher.flush()
    },
    reset: () => {
      scheduler.clear()
      dispatcher.clear()
      syncNotices.clear()
      ctx.state = seedState(random.fork('state'), { apiKey, now: clock.now() })
      ctx.random = random.fork('bank')
      faults = structuredClone(NO_FAULTS)
    },
  }

  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(assignRequestId)
  app.use((_req, _res, next) => {
    scheduler.runDue()
    next()
  })
  app.use('/_sandbox', express.json({ limit: '1mb' }), controlRoutes(runtime))
  app.use('/v1', injectApiFaults(runtime), authenticate(ctx), express.json({ limit: '1mb' }), bankRoutes(ctx))
  app.use(answerUnknownRoute)
  app.use(answerError)

  let server: Server | undefined
  let ticker: NodeJS.Timeout | undefined
  let url: string | undefined

  return {
    ctx,
    runtime,
    app,
    clock,
    apiKey: [...ctx.state.apiKeys.values()][0]!.key,
    apiKeys: () => [...ctx.state.apiKeys.values()],
    get url() {
      return url
    },
    async listen({ port = 0, host = '127.0.0.1' } = {}) {
      server = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)))
      })
      const address = server.address() as AddressInfo
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
      // The bank's timeline follows real time too: due tasks and deliveries go out without a request.
      ticker = setInterval(() => void runtime.catchUp().catch(() => undefined), 25)
      ticker.unref()
      return url
    },
    async close() {
      if (ticker) clearInterval(ticker)
      dispatcher.clear()
      if (server) {
        const s = server
        server = undefined
        s.closeAllConnections()
        await new Promise<void>((resolve) => s.close(() => resolve()))
      }
    },
    async advance(seconds) {
      clock.advance(seconds)
      await runtime.catchUp()
    },
    flushWebhooks: () => runtime.flushWebhooks(),
    reset: () => runtime.reset(),
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
