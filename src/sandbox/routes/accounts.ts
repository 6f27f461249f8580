import { Router } from 'express'
import { Account, AccountGetParams, AccountListParams } from '../../api-client/index.js'
import { notFound, parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import { presentAccounts } from '../bank/index.js'
import type { SandboxContext } from '../context.js'
import { selectFields } from '../fields.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'

const IDENTIFIERS = ['id', 'connectionId'] as const
const KNOWN_FIELDS = Object.keys(Account.shape)

/** GET /v1/accounts (filters, fields, cursor pagination) and GET /v1/accounts/{id}; scope accounts:read. */
export function accountRoutes(ctx: SandboxContext): Router {
  const router = Router()
  const read = requireScope('accounts:read')

  router.get(
    '/accounts',
    read,
    route((req, res) => {
      const query = parseInput(AccountListParams, req.query, 'query')
      const { orgId } = callerOf(res)
      // Discovery order: connection by connection, accounts as the bank listed them.
      const matching = [...ctx.state.accounts.values()].filter(
        (a) =>
          a.orgId === orgId &&
          (query.connectionId === undefined || a.connectionId === query.connectionId) &&
          (query.type === undefined || a.type === query.type) &&
          (query.currency === undefined || a.currency === query.currency) &&
          (query.status === undefined || a.status === query.status),
      )
      const page = paginate(matching, query)
      const data = presentAccounts(ctx, page.data).map((account) =>
        selectFields(account, query.fields, IDENTIFIERS, KNOWN_FIELDS),
      )
      res.json({ data, pagination: page.pagination, meta: metaOf(res) })
    }),
  )

  router.get(
    '/accounts/:accountId',
    read,
    route((req, res) => {
      const id = String(req.params.accountId)
      const query = parseInput(AccountGetParams, req.query, 'query')
      const account = ctx.state.accounts.get(id)
      if (!account || account.orgId !== callerOf(res).orgId) throw notFound('account', id)
      const [presented] = presentAccounts(ctx, [account])
      res.json(selectFields(presented!, query.fields, IDENTIFIERS, KNOWN_FIELDS))
    }),
  )

  return router
}
