import { sql, type Kysely } from 'kysely'
import type { Logger } from '../observability/index.js'
import { matchLockName, type MatchingService } from '../matching/index.js'
import type { Database } from '../store/index.js'

export type MatchInPlace = {
  /**
   * Matches the outbox in this process, without holding up the sync that asked: a request while a run is going
   * joins it (it runs once more). When another process's run holds the matching lock, or a run fails, the request
   * goes to the matching queue. The outbox holds the work either way, and the schedule's sweep drains whatever a
   * process that died left in it.
   */
  request(reason: string): void
  /** Resolves once no run is going (shutdown waits for it). */
  settled(): Promise<void>
}

export function createMatchInPlace(deps: {
  db: Kysely<Database>
  /** The store's schema: scopes the matching lock. */
  schema: string
  matching: MatchingService
  logger: Logger
}): MatchInPlace {
  let running: Promise<void> | undefined
  let again = false

  const lockIsFree = async () => {
    // Outside a transaction the lock is released as the statement ends: a hint that no run holds it now.
    const { rows } = await sql<{ free: boolean }>`
      select pg_try_advisory_xact_lock(hashtextextended(${matchLockName(deps.schema)}, 0)) as free
    `.execute(deps.db)
    return rows[0]?.free === true
  }
  const runOnce = async (reason: string) => {
    if (await lockIsFree()) {
      try {
        await deps.matching.runNow()
        return
      } catch (error) {
        deps.logger.warn({ err: error }, 'matching in place failed; the matching worker retries it')
      }
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
