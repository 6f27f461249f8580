import { Router } from 'express'
import { BalanceListParams, type AccountBalance } from '../../api-client/index.js'
import { parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import { balanceRowsOf } from '../bank/index.js'
import type { SandboxContext } from '../context.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'

/** Seed: balances are ordered by date descending, then accountId ascending. */
function byDateDescThenAccount(a: AccountBalance, b: AccountBalance): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1
  if (a.accountId === b.accountId) return 0
  return a.accountId < b.accountId ? -1 : 1
}

/**
 * GET /v1/balances: daily rows of the caller's accounts, date descending then accountId ascending, dateGte
 * inclusive, dateLt exclusive; cursors bound to the filters; scope accounts:read.
 */
export function balanceRoutes(ctx: SandboxContext): Router {
  const router = Router()

  router.get(
    '/balances',
    requireScope('accounts:read'),
    route((req, res) => {
      const query = parseInput(BalanceListParams, req.query, 'query')
      const { orgId } = callerOf(res)
      const accounts = [...ctx.state.accounts.values()].filter(
        (a) =>
          a.orgId === orgId &&
          (query.accountId === undefined || a.id === query.accountId) &&
          (query.connectionId === undefined || a.connectionId === query.connectionId) &&
          (query.entityId === undefined || a.entityId === query.entityId),
      )
      const rows = balanceRowsOf(ctx, accounts)
        .filter(
          (row) =>
            (query.dateGte === undefined || row.date >= query.dateGte) &&
            (query.dateLt === undefined || row.date < query.dateLt),
        )
        .sort(byDateDescThenAccount)
      const page = paginate(rows, query)
      res.json({ data: page.data, pagination: page.pagination, meta: metaOf(res) })
    }),
  )

  return router
}
