import type { FaultSettings, SandboxContext } from './context.js'

export type WebhookDispatcher = {
  emitEvent(orgId: string, type: string, data: Record<string, unknown>): void
  deliverDue(): Promise<void>
  flush(): Promise<void>
  clear(): void
}

export function createWebhookDispatcher(
  _ctx: SandboxContext,
  _deps: { fetch: typeof fetch; faults: () => FaultSettings },
): WebhookDispatcher {
  return {
    emitEvent: () => undefined,
    deliverDue: async () => undefined,
    flush: async () => undefined,
    clear: () => undefined,
  }
}
