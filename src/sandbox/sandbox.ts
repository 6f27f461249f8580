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
import { createLimitedServer } from '../http-listener/index.js'
import { answerError, answerUnknownRoute, assignRequestId } from './http.js'
import { createRandom } from './random.js'
import { bankRoutes } from './routes/index.js'
import { resumeScheduledWork } from './resume-scheduled-work.js'
import { createScheduler } from './scheduler.js'
import { seedState } from './seed-state.js'
import { readStateFile, STATE_FILE_VERSION, writeStateFile, type SavedSandbox } from './state-file.js'
import type { ApiKeyRecord, SandboxState } from './state.js'
import { createSyncNotices } from './sync-notices.js'
import { createWebhookDispatcher } from './webhook-dispatcher.js'

export type SandboxOptions = Partial<SandboxSettings> & {
  /** @defaultValue a virtual clock starting at the real time and following it */
  clock?: VirtualClock
  /** The full-scope test key of the main organization. @defaultValue derived from the seed */
  apiKey?: string
  /** Used for webhook deliveries. @defaultValue globalThis.fetch */
  fetch?: typeof fetch
  /**
   * A JSON file that keeps the bank across restarts: loaded at creation when it exists (its seed, state and clock
   * offset win over the options; the bank's scheduled work resumes), saved every stateSaveIntervalMs and on close.
   * @defaultValue none: the state lives in memory only
   */
  stateFile?: string
  /** @defaultValue 5000 */
  stateSaveIntervalMs?: number
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
  /** Writes the state file now (a no-op without stateFile). */
  saveState(): Promise<void>
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
  generatedActivity: true,
  dialect: 'seed',
}

/** A stateful, deterministic Bank Connectivity Service, in-process. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const {
    clock: givenClock,
    apiKey,
    fetch: fetchFn = globalThis.fetch,
    stateFile,
    stateSaveIntervalMs = 5000,
    ...overrides
  } = options
  const saved = stateFile ? readStateFile(stateFile) : undefined
  const settings: SandboxSettings = {
    ...DEFAULT_SETTINGS,
    ...stripUndefined(overrides),
    ...(saved ? { seed: saved.seed } : {}),
  }
  const clock = givenClock ?? createVirtualClock(saved ? { start: resumedNow(saved) } : {})
  const random = createRandom(settings.seed)
  const generation = saved ? saved.generation + 1 : 0
  // A restored bank draws ids from a stream of its own: the first run's streams would repeat ids it handed out.
  const bankRandom = () => random.fork(generation === 0 ? 'bank' : `bank#${generation}`)
  const scheduler = createScheduler(clock)
  let faults: FaultSettings = structuredClone(NO_FAULTS)

  const ctx: SandboxContext = {
    state: saved
      ? withMainKey(saved.state, apiKey)
      : seedState(random.fork('state'), { apiKey, now: clock.now() }),
    clock,
    random: bankRandom(),
    scheduler,
    settings,
    emitEvent: (orgId, type, data) => dispatcher.emitEvent(orgId, type, data),
    noteTransactionsChanged: (connectionId) => syncNotices.note(connectionId),
  }
  const dispatcher = createWebhookDispatcher(ctx, { fetch: fetchFn, faults: () => faults })
  const syncNotices = createSyncNotices(ctx)
  if (saved) resumeScheduledWork(ctx)

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
      ctx.random = bankRandom()
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
  let saving: Promise<void> = Promise.resolve()
  const saveState = (): Promise<void> => {
    if (!stateFile) return Promise.resolve()
    const snapshot: SavedSandbox = {
      version: STATE_FILE_VERSION,
      seed: settings.seed,
      generation,
      clock: { now: clock.now(), offsetMs: clock.now().getTime() - Date.now() },
      state: ctx.state,
    }
    // One write at a time, each of the state as it is when its turn comes.
    saving = saving.catch(() => undefined).then(() => writeStateFile(stateFile, snapshot))
    return saving
  }
  const saver = stateFile
    ? setInterval(
        () => void saveState().catch((error) => console.error('sandbox: could not save its state', error)),
        stateSaveIntervalMs,
      )
    : undefined
  saver?.unref()

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
      const listening = createLimitedServer(app)
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject)
        listening.listen(port, host, () => {
          listening.off('error', reject)
          resolve()
        })
      })
      server = listening
      const address = server.address() as AddressInfo
      url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
      // The bank's timeline follows real time too: due tasks and deliveries go out without a request.
      ticker = setInterval(() => void runtime.catchUp().catch(() => undefined), 25)
      ticker.unref()
      return url
    },
    async close() {
      if (ticker) clearInterval(ticker)
      if (saver) clearInterval(saver)
      // Notices still waiting become deliveries, which are state: the next run sends them.
      if (stateFile) syncNotices.sendAll()
      dispatcher.clear()
      await saveState()
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
    saveState,
  }
}

/** Where a restored clock starts: as far ahead of real time as it was, never before the saved time. */
function resumedNow(saved: SavedSandbox): Date {
  return new Date(Math.max(saved.clock.now.getTime(), Date.now() + saved.clock.offsetMs))
}

/** A restored state keeps its keys; a key given in the options becomes the main organization's full-scope key. */
function withMainKey(state: SandboxState, apiKey: string | undefined): SandboxState {
  const [main, ...others] = [...state.apiKeys.values()]
  if (!apiKey || !main || main.key === apiKey) return state
  state.apiKeys = new Map([[apiKey, { ...main, key: apiKey }], ...others.map((k) => [k.key, k] as const)])
  return state
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
