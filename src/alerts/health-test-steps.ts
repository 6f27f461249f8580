import type { ConnectionStatus } from '../api-client/index.js'
import { observe } from './health-observe.js'
import {
  emptyHealth,
  type ConnectionHealth,
  type HealthEffect,
  type HealthObservation,
} from './health-record.js'
import { tick } from './health-tick.js'

// The steps the health rules' tests (health-observe.test.ts, health-tick.test.ts) feed them: observations from
// webhooks and polls, and ticks, on a clock of seconds after T0. Test code only.

export const CONNECTION = 'c0a80101-0000-4000-8000-000000000001'
export const T0 = Date.parse('2026-03-02T09:00:00.000Z')
export const HOUR = 3600
export const at = (seconds: number) => new Date(T0 + seconds * 1000)
export const isoAt = (seconds: number) => at(seconds).toISOString()
export const THRESHOLDS = {
  erroredAfterSeconds: HOUR,
  staleSyncSeconds: 26 * HOUR,
  reminderSeconds: 4 * HOUR,
}

export function event(
  status: ConnectionStatus,
  seconds: number,
  eventId: string,
  extra: Partial<HealthObservation> = {},
) {
  return {
    status,
    observedAt: isoAt(seconds),
    source: 'webhook',
    eventId,
    ...extra,
  } satisfies HealthObservation
}

export function poll(
  status: ConnectionStatus,
  seconds: number,
  lastSyncedAt: number | null = null,
  extra: Partial<HealthObservation> = {},
): HealthObservation {
  return {
    ...extra,
    status,
    observedAt: isoAt(seconds),
    source: 'poll',
    lastSyncedAt: lastSyncedAt === null ? null : isoAt(lastSyncedAt),
  }
}

export type Step = HealthObservation | { tick: number }

/**
 * Feeds observations (at `now` = their own time plus a minute, unless given) and ticks; returns every effect.
 */
export function run(steps: Step[], options: { now?: Date; start?: ConnectionHealth } = {}) {
  let record = options.start ?? emptyHealth(CONNECTION)
  const effects: HealthEffect[] = []
  for (const step of steps) {
    const result =
      'tick' in step
        ? tick(record, at(step.tick), THRESHOLDS)
        : observe(record, step, options.now ?? new Date(Date.parse(step.observedAt) + 60_000), THRESHOLDS)
    record = result.record
    effects.push(...result.effects)
  }
  return { record, effects, notices: effects.filter((e) => e.type !== 'history') }
}

export const summary = (effects: HealthEffect[]) =>
  effects.filter((e) => e.type !== 'history').map((e) => `${e.type}:${e.kind}`)
