import { Router } from 'express'
import { z } from 'zod'
import { Uuid } from '../../api-client/index.js'
import { parseInput } from '../api-error.js'
import { presentAccounts } from '../bank/index.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'
import { presentTransaction } from '../present-transaction.js'
import { presentTransfer } from '../present-transfer.js'

const StateQuery = z.object({ connectionId: Uuid.optional() })

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * GET /_sandbox/state?connectionId=: the bank's truth in API shapes, every organization, sorted by id. With a
 * connectionId, its accounts and transactions and the transfers from or to one of its accounts.
 */
export function stateControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.get(
    '/state',
    route((req, res) => {
      const { ctx } = runtime
      const { connectionId } = parseInput(StateQuery, req.query, 'query')
      const inScope = (record: { connectionId: string }) =>
        connectionId === undefined || record.connectionId === connectionId
      const accounts = [...ctx.state.accounts.values()].filter(inScope).sort(byId)
      const accountIds = new Set(accounts.map((a) => a.id))
      const transfers = [...ctx.state.transfers.values()].filter(
        (t) =>
          connectionId === undefined ||
          accountIds.has(t.sourceAccountId) ||
          accountIds.has(t.destination.accountId),
      )
      res.json({
        accounts: presentAccounts(ctx, accounts),
        transactions: [...ctx.state.transactions.values()].filter(inScope).sort(byId).map(presentTransaction),
        transfers: transfers.sort(byId).map(presentTransfer),
      })
    }),
  )
  return router
}
