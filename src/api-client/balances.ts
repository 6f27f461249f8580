import { z } from 'zod'
import {
  BalanceString,
  DecimalString,
  IsoDate,
  IsoDateTime,
  PageParams,
  Uuid,
  listResponse,
  type ListResponse,
} from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages } from './pagination.js'
import { validateParams } from './validate-params.js'

export const BalanceSource = z.enum(['bank', 'derived'])

export const AccountBalance = z.looseObject({
  accountId: Uuid,
  connectionId: Uuid,
  entityId: Uuid,
  date: IsoDate,
  currency: z.string(),
  ledgerBalance: BalanceString,
  postedTransactionDelta: DecimalString,
  source: BalanceSource,
  updatedAt: IsoDateTime,
})
export type AccountBalance = z.infer<typeof AccountBalance>

export const BalanceListParams = PageParams.extend({
  dateGte: IsoDate.optional(),
  dateLt: IsoDate.optional(),
  accountId: Uuid.optional(),
  connectionId: Uuid.optional(),
  entityId: Uuid.optional(),
})
export type BalanceListParams = z.input<typeof BalanceListParams>

const BalanceList = listResponse(AccountBalance)

/** balances.list, plus listAll and listPages. */
export function createBalancesResource(http: HttpClient) {
  /**
   * GET /v1/balances: daily rows, date descending then accountId ascending. Rows are mutable projections:
   * re-read the dates you care about after a sync.
   */
  async function list(
    params: BalanceListParams = {},
    options?: CallOptions,
  ): Promise<ListResponse<AccountBalance>> {
    const query = validateParams(BalanceListParams, params)
    return http.request({ method: 'GET', path: '/v1/balances', query, schema: BalanceList, options })
  }

  return {
    list,
    listAll: (params: BalanceListParams = {}, options?: CallOptions) => listAll(list, params, options),
    listPages: (params: BalanceListParams = {}, options?: CallOptions) => listPages(list, params, options),
  }
}
export type BalancesResource = ReturnType<typeof createBalancesResource>
