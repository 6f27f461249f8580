import type { Kysely } from 'kysely'
import type { BankClient } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import type { Database } from '../store/index.js'
import { rereadBalances, type ConnectionSyncResult } from '../sync/index.js'
import { checkConnectionBalances } from './check-connection-balances.js'

/**
 * The sync worker's onSynced hook: proves the synced connection's balances from the earliest day the run changed
 * (every day after a bootstrap) and records exceptions. A failure of the proof is logged and never fails the sync
 * that ran before it.
 */
export function balanceCheckAfterSync(deps: {
  db: Kysely<Database>
  client: BankClient
  clock: Clock
  logger: Logger
}): (
  connectionId: string,
  run: Pick<ConnectionSyncResult, 'bootstrapped' | 'earliestPostedDate'>,
) => Promise<void> {
  return async (connectionId, run) => {
    try {
      const result = await checkConnectionBalances(
        {
          db: deps.db,
          clock: deps.clock,
          rereadBalances: (id, dateGte) => rereadBalances(deps, id, dateGte),
        },
        connectionId,
        run.bootstrapped ? 'all' : run.earliestPostedDate,
      )
      if (result.problems.length > 0) {
        deps.logger.warn(
          {
            connectionId,
            days: result.problems.map((d) => ({
              accountId: d.accountId,
              date: d.date,
              problem: d.problemCodes,
            })),
          },
          'balance proof: days that do not add up (balance exceptions)',
        )
      }
    } catch (error) {
      deps.logger.error({ err: error, connectionId }, 'balance proof after sync failed')
    }
  }
}
