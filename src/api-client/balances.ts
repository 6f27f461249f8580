import { z } from 'zod'
import { BalanceString, DecimalString, IsoDate, IsoDateTime, PageParams, Uuid } from './common.js'

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
