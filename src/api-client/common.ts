import { z } from 'zod'

/** A signed decimal string such as "-1250.00". Money is never a JS number. */
export const DecimalString = z
  .string()
  .regex(/^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/, 'must be a decimal string such as "-1250.00"')

/** The seed's balance pattern: signed, leading zeros allowed, not only signs and dots. */
export const BalanceString = z
  .string()
  .regex(/^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$/, 'must be a decimal balance string')

export const IsoDate = z.iso.date()
export const IsoDateTime = z.iso.datetime({ offset: true })
export const Uuid = z.uuid()
export const Metadata = z.record(z.string(), z.unknown())
export const HttpsUrl = z
  .string()
  .max(2048)
  .regex(/^https:\/\/.+/, 'must be an https:// URL')
  .pipe(z.url())

export const MoneyAmount = z.looseObject({
  type: z.literal('money'),
  value: DecimalString,
  currency: z.string().min(1),
})
export type MoneyAmount = z.infer<typeof MoneyAmount>

export const ResponseMeta = z.looseObject({ requestId: z.string() })

export const Pagination = z.looseObject({
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
})

/** The list envelope every list endpoint answers with. */
export function listResponse<T extends z.ZodType>(item: T) {
  return z.looseObject({ data: z.array(item), pagination: Pagination, meta: ResponseMeta })
}
export type ListResponse<T> = {
  data: T[]
  pagination: { hasMore: boolean; nextCursor: string | null }
  meta: { requestId: string }
}

/** Typed number | string on input: callers pass numbers, query strings arrive as text. */
export const Limit = z.coerce.number<number | string>().int().min(1).max(500)

/** Query parameters shared by every cursor-paginated list. */
export const PageParams = z.object({
  cursor: z.string().min(1).nullish(),
  limit: Limit.default(100),
})

/** A comma-separated sparse fieldset. */
export const Fields = z
  .string()
  .regex(/^[A-Za-z]+(,[A-Za-z]+)*$/, 'must be a comma-separated list of field names')

export const ErrorDetail = z.looseObject({ path: z.string(), message: z.string() })

/** The error body of every failed request (the seed leaves it open; docs/sandbox.md records the choice). */
export const ErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    requestId: z.string().optional(),
    details: z.array(ErrorDetail).optional(),
  }),
})
export type ErrorBody = z.infer<typeof ErrorBody>

/** Stable error codes the service answers with. */
export const ErrorCodes = {
  authenticationRequired: 'authentication_required',
  invalidApiKey: 'invalid_api_key',
  apiKeyExpired: 'api_key_expired',
  insufficientScope: 'insufficient_scope',
  notFound: 'not_found',
  validation: 'validation_error',
  invalidCursor: 'invalid_cursor',
  cursorExpired: 'cursor_expired',
  syncInProgress: 'sync_in_progress',
  connectionInSetup: 'connection_in_setup',
  idempotencyKeyReused: 'idempotency_key_reused',
  deleteConflict: 'delete_conflict',
  connectionNotActive: 'connection_not_active',
  connectionNotInSetup: 'connection_not_in_setup',
  credentialsRequired: 'credentials_required',
  transferNotRetryable: 'transfer_not_retryable',
  transferTerminal: 'transfer_terminal',
  webhookInactive: 'webhook_inactive',
  syncCooldown: 'sync_cooldown',
  rateLimited: 'rate_limited',
  internal: 'internal_error',
  unavailable: 'service_unavailable',
} as const
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes]
