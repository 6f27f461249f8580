import { randomUUID } from 'node:crypto'
import type { EventEnvelope } from '../api-client/index.js'
import { signPayload } from '../signing/index.js'
import type { FaultSettings, SandboxContext } from './context.js'
import { dialectOf } from './dialects.js'
import type { Random } from './random.js'
import type { DeliveryRecord, WebhookRecord } from './state.js'

/** Attempts per delivery before it is marked failed. */
export const MAX_DELIVERY_ATTEMPTS = 8
/** Virtual seconds before the retry that follows attempt n (1-based): 1, 2, 4 … 64. */
export function retryDelaySeconds(attempt: number): number {
  return 2 ** (attempt - 1)
}
/** Real milliseconds a receiver has to answer one delivery request. */
export const DELIVERY_TIMEOUT_MS = 10_000

export type WebhookDispatcher = {
  emitEvent(orgId: string, type: string, data: Record<string, unknown>): void
  /** Attempts every pending delivery whose next attempt is due on the virtual clock. */
  deliverDue(): Promise<void>
  /** Attempts every pending delivery now, ignoring back-off. */
  flush(): Promise<void>
  /** Forgets waiting callers and aborts requests in flight (reset, close). */
  clear(): void
}

export type WebhookDispatcherDeps = { fetch: typeof fetch; faults: () => FaultSettings }

/** The envelope every delivery carries (docs/sandbox.md, "Webhook events"). */
export function buildEvent(ctx: SandboxContext, type: string, data: Record<string, unknown>): EventEnvelope {
  // The event id comes from the system's randomness, not the seed, so it stays unique across restarts.
  return { id: `evt_${randomUUID()}`, type, createdAt: ctx.clock.now().toISOString(), apiVersion: 'v1', data }
}

/** Queues one delivery of an event to one registration, due at once, in the sandbox's current dialect. */
export function queueDelivery(
  ctx: SandboxContext,
  webhook: WebhookRecord,
  event: EventEnvelope,
): DeliveryRecord {
  const delivery: DeliveryRecord = {
    id: `dlv_${randomUUID()}`,
    webhookId: webhook.id,
    eventId: event.id,
    eventType: event.type,
    body: JSON.stringify(dialectOf(ctx.settings.dialect).envelope(event)),
    attempts: 0,
    nextAttemptAt: ctx.clock.now(),
    status: 'pending',
    lastStatusCode: null,
  }
  ctx.state.deliveries.push(delivery)
  return delivery
}

type Waiter = { all: boolean; done: () => void }

/**
 * Delivers events to webhook registrations: signed POSTs, retried with exponential back-off on the virtual clock.
 * Attempts run one batch at a time, in emission order (shuffled under the reorder fault), so no delivery is ever
 * attempted twice at once and receivers see events in the order they happened.
 */
export function createWebhookDispatcher(ctx: SandboxContext, deps: WebhookDispatcherDeps): WebhookDispatcher {
  let waiters: Waiter[] = []
  let looping = false
  let aborter = new AbortController()
  let faultsSeen: FaultSettings | undefined
  let faultRandom: Random | undefined

  // A new fault setting restarts its random sequence, so the same seed and setting repeat the same faults.
  const faultsNow = (): { settings: FaultSettings['webhooks']; random: Random } => {
    const settings = deps.faults()
    if (settings !== faultsSeen || !faultRandom) {
      faultsSeen = settings
      faultRandom = ctx.random.fork('webhook-faults')
    }
    return { settings: settings.webhooks, random: faultRandom }
  }

  const pick = (all: boolean): DeliveryRecord[] => {
    const nowMs = ctx.clock.now().getTime()
    return ctx.state.deliveries.filter(
      (d) => d.status === 'pending' && (all || d.nextAttemptAt.getTime() <= nowMs),
    )
  }

  const post = async (webhook: WebhookRecord, body: string, signal: AbortSignal): Promise<number | null> => {
    try {
      const response = await deps.fetch(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // Signatures carry the real time of sending: that is what a receiver's tolerance check compares with.
          'service-signature': signPayload({
            payload: body,
            secret: webhook.secret,
            timestamp: Math.floor(Date.now() / 1000),
          }),
          'user-agent': 'bankrec-sandbox-webhooks/1',
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      })
      await response.body?.cancel().catch(() => undefined)
      return response.status
    } catch {
      return null
    }
  }

  const attempt = async (delivery: DeliveryRecord, signal: AbortSignal): Promise<void> => {
    const webhook = ctx.state.webhooks.get(delivery.webhookId)
    // Deliveries go only to active registrations (seed, Webhook registration): a deleted or deactivated one ends
    // its pending deliveries.
    if (!webhook || !webhook.active) {
      delivery.status = 'failed'
      return
    }
    const { settings, random } = faultsNow()
    const firstAttempt = delivery.attempts === 0
    const drop = firstAttempt && random.chance(settings.dropRate)
    const duplicate = firstAttempt && random.chance(settings.duplicateRate)
    if (drop) {
      delivery.status = 'dropped'
      return
    }
    if (settings.delayMs > 0) await sleep(settings.delayMs, signal)
    if (signal.aborted) return
    delivery.attempts++
    const status = await post(webhook, delivery.body, signal)
    if (duplicate && !signal.aborted) await post(webhook, delivery.body, signal)
    if (signal.aborted) return
    delivery.lastStatusCode = status
    if (status !== null && status >= 200 && status < 300) {
      delivery.status = 'delivered'
    } else if (delivery.attempts >= MAX_DELIVERY_ATTEMPTS) {
      delivery.status = 'failed'
    } else {
      delivery.nextAttemptAt = new Date(
        ctx.clock.now().getTime() + retryDelaySeconds(delivery.attempts) * 1000,
      )
    }
  }

  const runBatch = async (all: boolean): Promise<void> => {
    const signal = aborter.signal
    const batch = pick(all)
    const faults = faultsNow()
    if (batch.length > 1 && faults.settings.reorder) shuffle(batch, faults.random)
    for (const delivery of batch) {
      if (signal.aborted) return
      await attempt(delivery, signal)
    }
  }

  const loop = async (): Promise<void> => {
    looping = true
    try {
      while (waiters.length > 0) {
        const current = waiters
        waiters = []
        try {
          await runBatch(current.some((w) => w.all))
        } catch (error) {
          console.error('sandbox: webhook delivery batch failed', error)
        } finally {
          for (const waiter of current) waiter.done()
        }
      }
    } finally {
      looping = false
    }
  }

  const kick = (all: boolean): Promise<void> =>
    new Promise((done) => {
      waiters.push({ all, done })
      if (!looping) void loop()
    })

  return {
    emitEvent(orgId, type, data) {
      const event = buildEvent(ctx, type, data)
      for (const webhook of ctx.state.webhooks.values()) {
        if (webhook.orgId === orgId && webhook.active && (webhook.events as string[]).includes(type)) {
          queueDelivery(ctx, webhook, event)
        }
      }
    },
    deliverDue: () => kick(false),
    flush: () => kick(true),
    clear() {
      aborter.abort()
      aborter = new AbortController()
      const current = waiters
      waiters = []
      for (const waiter of current) waiter.done()
    },
  }
}

function shuffle<T>(items: T[], random: Random): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i)
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
