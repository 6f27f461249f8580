import { z } from 'zod'
import { IsoDate, IsoDateTime, MoneyAmount, Uuid } from './common.js'

export const TransferStatus = z.enum([
  'queued',
  'executing',
  'pending_bank_approval',
  'completed',
  'failed',
  'returned',
  'cancelled',
  'unknown',
])
export type TransferStatus = z.infer<typeof TransferStatus>
export const TERMINAL_TRANSFER_STATUSES: readonly TransferStatus[] = [
  'completed',
  'failed',
  'returned',
  'cancelled',
]

export const TransferRail = z.enum(['internal', 'ach', 'wire', 'swift', 'fednow', 'rtp', 'sepa', 'local'])

export const TransferDestination = z.looseObject({ type: z.string(), accountId: Uuid })

export const TransferFailureReason = z.looseObject({ message: z.string() })

export const Transfer = z.looseObject({
  id: Uuid,
  status: TransferStatus,
  type: z.enum(['internal', 'external']),
  requestedAmount: MoneyAmount,
  sourceAccountId: Uuid,
  destination: TransferDestination,
  transferType: TransferRail,
  clientReference: z.string(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  executedAmount: MoneyAmount.optional(),
  memo: z.string().nullable().optional(),
  failureReason: TransferFailureReason.optional(),
})
export type Transfer = z.infer<typeof Transfer>

/** Positive amounts only: a transfer moves money from the source to the destination. */
export const TransferAmount = z.object({
  type: z.literal('money'),
  value: z.string().regex(/^\d+(\.\d{1,8})?$/, 'must be a positive decimal string such as "125.00"'),
  currency: z.string().regex(/^[A-Z0-9]{3,12}$/),
})

export const TransferCreateParams = z.object({
  type: z.literal('internal'),
  amount: TransferAmount.refine((a) => !/^0+(\.0+)?$/.test(a.value), {
    message: 'must be greater than zero',
    path: ['value'],
  }),
  sourceAccountId: Uuid,
  destination: z.object({ type: z.string().min(1), accountId: Uuid }),
  transferType: z.literal('internal'),
  clientReference: z.string().min(1).max(140),
  executionDate: IsoDate.nullish(),
  memo: z.string().max(500).nullish(),
  skipPreflight: z.boolean().optional(),
})
export type TransferCreateParams = z.input<typeof TransferCreateParams>

/** Seed: length 1 to 255, no leading or trailing white space. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^\S(?:.*\S)?$/, 'must not start or end with white space')
