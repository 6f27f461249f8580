import type { Kysely } from 'kysely'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { pruneEventRecords, type Database } from '../store/index.js'

const DAY_MS = 24 * 60 * 60 * 1000

export type EventRetentionOptions = {
  db: Kysely<Database>
  clock: Clock
  logger: Logger
  /** Days an event's processed record is kept (its redeliveries are not processed again within them). */
  processedDays: number
  /** Days an uninterpretable event's body is kept once its exception is resolved. */
  uninterpretableDays: number
  /** How often a process prunes, at most. @defaultValue one hour */
  everyMs?: number
}

export type EventRetention = { afterEvent(): Promise<void> }

/**
 * Prunes processed and uninterpretable event records past their retention, as received events are pruned past
 * the dedupe window: after an event, at most once per `everyMs` per process. A prune that fails is logged and
 * retried at the next interval; it never fails the event.
 */
export function createEventRetention(options: EventRetentionOptions): EventRetention {
  const everyMs = options.everyMs ?? 60 * 60 * 1000
  let prunedAt = Number.NEGATIVE_INFINITY
  return {
    async afterEvent() {
      const now = options.clock.now().getTime()
      if (now - prunedAt < everyMs) return
      prunedAt = now
      try {
        const pruned = await pruneEventRecords(options.db, {
          processedBefore: new Date(now - options.processedDays * DAY_MS),
          uninterpretableBefore: new Date(now - options.uninterpretableDays * DAY_MS),
        })
        if (pruned.processed + pruned.uninterpretable > 0) options.logger.info(pruned, 'event records pruned')
      } catch (error) {
        options.logger.warn({ err: error }, 'event records not pruned; retrying at the next interval')
      }
    },
  }
}
