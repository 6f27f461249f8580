import express, { Router } from 'express'
import { z } from 'zod'
import { Uuid } from '../../api-client/index.js'
import {
  CAMT054_LIMITS,
  camt054Advice,
  MAX_ADVICE_LINES,
  parseRemittanceCsv,
  RemittanceFee,
  RemittanceFeeReason,
  RemittanceLine,
  type Camt054AdviceOf,
  type RemittanceAdvice,
} from '../../closing/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { refuseLargeBody } from '../refuse-large-body.js'
import { csvBody, importCsvBody, rejectImport } from './library-request.js'

export const JsonAdvice = z.strictObject({
  lines: z.array(RemittanceLine).min(1).max(MAX_ADVICE_LINES),
  fee: RemittanceFee.optional(),
  feeReason: RemittanceFeeReason.optional(),
})

export const Params = z.object({ id: Uuid })
export const Query = z.object({
  feeReason: RemittanceFeeReason.optional(),
  /** A camt.054 document's entry: its NtryRef or AcctSvcrRef (ISO Max35Text). */
  entry: z.string().trim().min(1).max(35).optional(),
})

/** A camt.054 notification is capped at what one needs (1 MB), then pre-scanned and parsed off the event loop. */
const XML_BODY_LIMIT = CAMT054_LIMITS.bytes
const XML_TYPES = ['application/xml', 'text/xml']

/**
 * POST /api/transactions/{id}/remittance (clerk): settles a bank line by its remittance advice or payout report,
 * JSON `{ lines, fee?, feeReason? }`, a CSV `invoiceNumber,amount[,fee]` (`?feeReason=psp_fee` for a payout) or
 * a camt.054 notification (`application/xml`, `?entry=` to choose its entry). All of it or nothing
 * (docs/closing.md, lump sums).
 */
export function remittanceRoutes(context: SidecarContext): Router {
  const router = Router()
  router.post(
    '/transactions/:id/remittance',
    requireRole('clerk'),
    csvBody(),
    refuseLargeBody(XML_BODY_LIMIT, XML_TYPES),
    // Inflated (Content-Encoding) and decoded by its charset like a JSON body; its errors answered the same way.
    express.text({ type: XML_TYPES, limit: XML_BODY_LIMIT }),
    handle(async (req, res) => {
      const { id } = parseRequest(Params, req.params, 'params')
      const { feeReason, entry } = parseRequest(Query, req.query, 'query')
      let advice: RemittanceAdvice | Camt054AdviceOf
      if (req.is(XML_TYPES)) {
        const xml = typeof req.body === 'string' ? req.body : ''
        advice = await camt054Advice(xml, { feeReason, entry })
      } else if (req.is('application/json') && !('csv' in (req.body ?? {}))) {
        advice = parseRequest(JsonAdvice, req.body, 'body')
      } else {
        const parsed = await importCsvBody(req, res, (input) => parseRemittanceCsv(input, feeReason))
        if (!parsed.ok) return rejectImport(res, parsed)
        if (parsed.advice.lines.length === 0) {
          throw new SidecarApiError(400, 'validation_error', 'The advice has no lines.', [
            { path: 'body', message: 'must have at least one invoiceNumber,amount row' },
          ])
        }
        advice = parsed.advice
      }
      const result = await context.closing.importRemittance(id, advice, actorOf(res))
      // 202: the write-off needs a second person; nothing is applied until approved (/api/remittance-imports).
      res.status(result.status === 'pending_approval' ? 202 : 201).json({ transactionId: id, ...result })
    }),
  )
  return router
}
