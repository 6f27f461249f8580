import { inSpan, type Logger } from '../observability/index.js'
import type { MatchingService } from './matching-service.js'
import { runMatchingWithin } from './run-matching.js'

/**
 * How long a run in place waits for the matching lock before it leaves the run to the queue. A batch holds the
 * lock for tens of milliseconds: waiting one's turn is far cheaper than a queue hop, whose job would wait for the
 * same lock; only a long run (a large import) sends the request to the queue.
 */
const MATCH_IN_PLACE_WAIT_MS = 2_000

export type MatchInPlace = {
  /**
   * Matches the outbox in this process, without holding up the sync that asked: a request while a run is going
   * joins it (it runs once more). When another run holds the matching lock longer than MATCH_IN_PLACE_WAIT_MS, or
   * a run fails, the request goes to the matching queue. The outbox holds the work either way, and the schedule's
   * sweep drains whatever a process that died left in it.
   */
  request(reason: string): void
  /** Resolves once no run is going (shutdown waits for it). */
  settled(): Promise<void>
}

/** Matching's in-place policy: the run a sync's commit asks for, here when the lock comes soon, else queued. */
export function createMatchInPlace(deps: {
  matching: Pick<MatchingService, 'runDeps' | 'requestRun'>
  logger: Logger
}): MatchInPlace {
  let running: Promise<void> | undefined
  let again = false

  const runOnce = async (reason: string) => {
    try {
      const ran = await inSpan('matching run', {}, () =>
        runMatchingWithin(deps.matching.runDeps, MATCH_IN_PLACE_WAIT_MS),
      )
      if (ran) return
    } catch (error) {
      deps.logger.warn({ err: error }, 'matching in place failed; the matching worker retries it')
    }
    await deps.matching.requestRun(reason)
  }
  const loop = async (reason: string) => {
    try {
      do {
        again = false
        await runOnce(reason).catch((error: unknown) =>
          deps.logger.error({ err: error }, 'could not run or queue matching; the sweep will'),
        )
      } while (again)
    } finally {
      running = undefined
    }
  }
  return {
    request(reason) {
      if (running) again = true
      else running = loop(reason)
    },
    settled: async () => {
      while (running) await running
    },
  }
}
