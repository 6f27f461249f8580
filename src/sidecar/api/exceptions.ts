import { Router } from 'express'
import { z } from 'zod'
import { Limit, Uuid } from '../../api-client/index.js'
import { findException, listExceptions } from '../../store/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { decodeKeyCursor, keyPage, listFingerprint } from './key-cursor.js'
import { presentException } from './present-matching.js'

export const ExceptionType = z.enum([
  'unmatched_payment',
  'suggested_match',
  'overpayment',
  'currency_mismatch',
  'ambiguous_reference',
  'transfer_leg_missing',
  'payment_returned',
  'uninterpretable_event',
  'unreadable_sync_event',
])

export const Query = z.object({
  type: ExceptionType.optional(),
  state: z.enum(['open', 'resolved', 'all']).default('open'),
  transactionId: Uuid.optional(),
  invoiceId: z.string().min(1).optional(),
  cursor: z.string().min(1).optional(),
  limit: Limit.default(100),
})

export const Params = z.object({ key: z.string().min(1).max(500) })

/**
 * GET /api/exceptions (open ones by default, in key order), POST /api/exceptions/{key}/accept and /reject for
 * suggested matches: a person's inputs, matched in the same run as everything else.
 */
export function exceptionRoutes(context: SidecarContext): Router {
  const router = Router()
  const db = context.store.db
  router.get(
    '/exceptions',
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      const filter = {
        type: query.type,
        state: query.state,
        transactionId: query.transactionId,
        invoiceId: query.invoiceId,
      }
      const fingerprint = listFingerprint('exceptions', filter)
      const after = query.cursor ? decodeKeyCursor(query.cursor, fingerprint) : null
      const rows = await listExceptions(db, filter, after, query.limit + 1)
      res.json(keyPage(rows, query.limit, (row) => row.key, fingerprint, presentException))
    }),
  )
  for (const action of ['accept', 'reject'] as const) {
    router.post(
      `/exceptions/:key/${action}`,
      requireRole('clerk'),
      handle(async (req, res) => {
        const { key } = parseRequest(Params, req.params, 'params')
        await (action === 'accept'
          ? context.closing.acceptSuggestion(key, actorOf(res))
          : context.closing.rejectSuggestion(key, actorOf(res)))
        const row = await findException(db, key)
        if (!row) throw new SidecarApiError(404, 'not_found', `No exception ${key}.`)
        res.json(presentException(row))
      }),
    )
  }
  return router
}
