import { Decimal } from 'decimal.js'
import { Router } from 'express'
import { z } from 'zod'
import { DecimalString, Uuid } from '../../api-client/index.js'
import { parseCsvRows, type CsvSchema } from '../../csv-rows/index.js'
import type { RemittanceAdvice } from '../../reconcile/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { asApiError } from './domain-error.js'
import { csvBody, importCsvBody, rejectImport } from './library-request.js'

/** The sign of a decimal string; NaN when it is none (zod runs refinements after a failed pattern too: the
 * pattern's message is the one to show then). */
function signOf(value: string): number {
  try {
    return new Decimal(value).comparedTo(0)
  } catch {
    return Number.NaN
  }
}

const Amount = DecimalString.refine((value) => !(signOf(value) <= 0), 'must be more than 0')
const Fee = DecimalString.refine((value) => !(signOf(value) < 0), 'must be 0 or more')
const FeeReason = z.enum(['bank_fee', 'psp_fee'])

const Line = z.strictObject({ invoiceNumber: z.string().trim().min(1).max(255), amount: Amount })

const JsonAdvice = z.strictObject({
  lines: z.array(Line).min(1).max(10_000),
  fee: Fee.optional(),
  feeReason: FeeReason.optional(),
})

const Params = z.object({ id: Uuid })
const Query = z.object({ feeReason: FeeReason.optional() })

type CsvLine = { invoiceNumber: string; amount: string; fee: string | undefined }

const CsvLineSchema = z.object({
  invoiceNumber: Line.shape.invoiceNumber,
  amount: Amount,
  fee: Fee.optional(),
})

/** A remittance advice or payout report: a line per invoice, its fee (if the report states one per line). */
const ADVICE_CSV_SCHEMA: CsvSchema<'invoiceNumber' | 'amount' | 'fee', CsvLine> = {
  noun: 'a remittance line',
  columns: ['invoiceNumber', 'amount', 'fee'],
  required: ['invoiceNumber', 'amount'],
  validate(fields) {
    const parsed = CsvLineSchema.safeParse({ ...fields, fee: fields.fee || undefined })
    if (parsed.success) return { ok: true, value: parsed.data as CsvLine }
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => ({
        field: String(issue.path[0] ?? ''),
        message: issue.message,
      })),
    }
  },
}

/**
 * POST /api/transactions/{id}/remittance (clerk): settles a bank line by its remittance advice or payout report,
 * JSON `{ lines, fee?, feeReason? }` or a CSV `invoiceNumber,amount[,fee]` (the fee column's sum is the advice's
 * fee; `?feeReason=psp_fee` for a payout). All of it or nothing (docs/closing.md, lump sums).
 */
export function remittanceRoutes(context: SidecarContext): Router {
  const router = Router()
  router.post(
    '/transactions/:id/remittance',
    requireRole('clerk'),
    csvBody(),
    handle(async (req, res) => {
      const { id } = parseRequest(Params, req.params, 'params')
      let advice: RemittanceAdvice
      if (req.is('application/json') && !('csv' in (req.body ?? {}))) {
        advice = parseRequest(JsonAdvice, req.body, 'body')
      } else {
        const { feeReason } = parseRequest(Query, req.query, 'query')
        const parsed = await importCsvBody(req, res, (input) => parseCsvRows(input, ADVICE_CSV_SCHEMA))
        if (!parsed.ok) return rejectImport(res, parsed)
        if (parsed.rows.length === 0) {
          throw new SidecarApiError(400, 'validation_error', 'The advice has no lines.', [
            { path: 'body', message: 'must have at least one invoiceNumber,amount row' },
          ])
        }
        const fee = parsed.rows.reduce((sum, row) => sum.plus(row.fee ?? 0), new Decimal(0))
        advice = {
          lines: parsed.rows.map(({ invoiceNumber, amount }) => ({ invoiceNumber, amount })),
          fee: fee.toFixed(),
          ...(feeReason ? { feeReason } : {}),
        }
      }
      const result = await asApiError(() => context.reconcile.importRemittance(id, advice, actorOf(res)))
      res.status(201).json({ transactionId: id, ...result })
    }),
  )
  return router
}
