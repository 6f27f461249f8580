import { z } from 'zod'
import { IsoDate, IsoDateTime, MoneyAmount, Uuid } from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { pathSegment, validateParams } from './validate-params.js'

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

/** Options of the two transfer writes: without an idempotencyKey the client generates one. */
export type TransferWriteOptions = CallOptions & { idempotencyKey?: string }

/**
 * transfers.create/get/retry. Each write carries an Idempotency-Key (the caller's, or a fresh one) and reuses it
 * on every automatic retry, so a lost answer never becomes a second payment.
 */
export function createTransfersResource(http: HttpClient, deps: { generateIdempotencyKey: () => string }) {
  const keyFor = (options: TransferWriteOptions | undefined) =>
    validateParams(IdempotencyKey, options?.idempotencyKey ?? deps.generateIdempotencyKey(), 'idempotencyKey')

  return {
    /** POST /v1/transfers: an internal transfer between two connected accounts. */
    async create(params: TransferCreateParams, options?: TransferWriteOptions): Promise<Transfer> {
      const body = validateParams(TransferCreateParams, params)
      const idempotencyKey = keyFor(options)
      return http.request({
        method: 'POST',
        path: '/v1/transfers',
        body,
        idempotencyKey,
        schema: Transfer,
        options,
      })
    },
    /** GET /v1/transfers/{id} */
    async get(id: string, options?: CallOptions): Promise<Transfer> {
      return http.request({
        method: 'GET',
        path: `/v1/transfers/${pathSegment('id', id)}`,
        schema: Transfer,
        options,
      })
    },
    /** POST /v1/transfers/{id}/retry */
    async retry(id: string, options?: TransferWriteOptions): Promise<Transfer> {
      const path = `/v1/transfers/${pathSegment('id', id)}/retry`
      const idempotencyKey = keyFor(options)
      return http.request({ method: 'POST', path, idempotencyKey, schema: Transfer, options })
    },
  }
}
export type TransfersResource = ReturnType<typeof createTransfersResource>
