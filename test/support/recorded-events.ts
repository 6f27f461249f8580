import type { Sandbox } from '../../src/sandbox/index.js'

export type RecordedEvent = { orgId: string; type: string; data: Record<string, unknown> }

/**
 * Records every webhook event the bank emits (still delivered as usual), to check which events a bank action
 * produced without running a receiver. Events since the last `events.length = 0` are what a test sees.
 */
export function recordEvents(sandbox: Sandbox): RecordedEvent[] {
  const events: RecordedEvent[] = []
  const emit = sandbox.ctx.emitEvent
  sandbox.ctx.emitEvent = (orgId, type, data) => {
    events.push({ orgId, type, data: structuredClone(data) })
    emit(orgId, type, data)
  }
  return events
}
