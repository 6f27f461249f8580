import { Router, type Response } from 'express'
import {
  createInvoices,
  importRefusalMessage,
  InvoiceError,
  type InvoiceImportResult,
} from '../../invoices/index.js'
import { handle, SidecarApiError } from '../api-error.js'
import { refuseLargeBody } from '../refuse-large-body.js'
import { csvBodyStream, discardRest } from './csv-body.js'
import { unstorableLine } from './refuse-unstorable-text.js'
import { requireRole } from '../auth/index.js'
import type { SidecarContext } from '../runtime.js'

/** CSV bodies are streamed and validated before anything is written; 50 MB holds several hundred thousand invoices. */
const CSV_BODY_LIMIT = 50 * 1024 * 1024
const CSV_TYPES = ['text/csv', 'text/plain', 'application/csv']

/** Library errors become API errors whose paths say where the field was: params, body or query. */
function asApiError(error: unknown, where: (path: string) => string): unknown {
  if (!(error instanceof InvoiceError)) return error
  const details = error.details?.map((detail) => ({ path: where(detail.path), message: detail.message }))
  const message = details
    ? details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
    : error.message
  return new SidecarApiError(error.status, error.code, message, details)
}

const inBody = (path: string) => (path === 'id' ? 'params.id' : path ? `body.${path}` : 'body')
const inQuery = (path: string) => `query.${path}`

function notFound(id: string): SidecarApiError {
  return new SidecarApiError(404, 'not_found', `No invoice ${JSON.stringify(id)}.`)
}

function rejectImport(res: Response, result: Extract<InvoiceImportResult, { ok: false }>): void {
  const { errors, badRows, stoppedAtLine } = result
  const details = errors.flatMap((row) =>
    row.reasons.map((reason) => ({
      path: reason.field ? `line.${row.line}.${reason.field}` : `line.${row.line}`,
      message: reason.message,
    })),
  )
  res.status(400).json({
    error: {
      code: 'invalid_csv',
      message: `${importRefusalMessage(result)}.`,
      requestId: String(res.locals.requestId ?? ''),
      details,
      rows: errors,
      badRows,
      stoppedAtLine,
    },
  })
}

/** The CSV of a JSON `{ csv }` body (parsed by the /api JSON parser). */
function csvOfJson(body: unknown): string {
  const csv =
    typeof body === 'object' && body !== null && typeof (body as { csv?: unknown }).csv === 'string'
      ? (body as { csv: string }).csv
      : undefined
  if (csv === undefined) {
    throw new SidecarApiError(
      400,
      'validation_error',
      'body must be the CSV file (Content-Type: text/csv) or JSON { "csv": "<the file>" }.',
      [{ path: 'body', message: 'must be a CSV text or JSON { "csv": string }' }],
    )
  }
  const line = unstorableLine(csv)
  if (line !== undefined) {
    const message = 'must not contain U+0000 or an unpaired surrogate'
    throw new SidecarApiError(400, 'invalid_csv', `line ${line} ${message}; nothing was imported.`, [
      { path: `line.${line}`, message },
    ])
  }
  return csv
}

/**
 * PUT /api/invoices/{id} (upsert: 201 created, 200 otherwise), GET /api/invoices/{id}, GET /api/invoices
 * (status, customer, cursor, limit; the bank API's list envelope), DELETE /api/invoices/{id} (void: 200 with
 * the voided invoice) and POST /api/invoices/import (a text/csv body or JSON `{ csv }`; all or nothing).
 */
export function invoiceRoutes(context: SidecarContext): Router {
  const router = Router()
  const invoices = createInvoices(context)

  router.post(
    '/invoices/import',
    requireRole('admin'),
    refuseLargeBody(CSV_BODY_LIMIT, CSV_TYPES),
    handle(async (req, res) => {
      const stream = req.is(CSV_TYPES) ? csvBodyStream(req, CSV_BODY_LIMIT) : undefined
      const result = await invoices.import(stream ?? csvOfJson(req.body)).catch((error: unknown) => {
        // Refused before its end (too large, U+0000): the rest of the body is not read.
        if (!req.complete) res.setHeader('connection', 'close')
        throw error
      })
      if (!result.ok) {
        // Checking stopped early: the rest of the body is read and dropped unparsed.
        if (stream && !req.complete) await discardRest(stream)
        if (!req.complete) res.setHeader('connection', 'close')
        return rejectImport(res, result)
      }
      res.json({
        rows: result.rows,
        created: result.created,
        updated: result.updated,
        unchanged: result.unchanged,
      })
    }),
  )

  router.put(
    '/invoices/:id',
    requireRole('admin'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const body: unknown = req.body
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new SidecarApiError(400, 'validation_error', 'body must be a JSON object (the invoice).', [
          { path: 'body', message: 'must be a JSON object' },
        ])
      }
      const given = (body as { id?: unknown }).id
      if (given !== undefined && given !== id) {
        throw new SidecarApiError(400, 'validation_error', 'body.id must equal the id in the path.', [
          { path: 'body.id', message: 'must equal the id in the path' },
        ])
      }
      const result = await invoices.upsert({ ...body, id }).catch((error: unknown) => {
        throw asApiError(error, inBody)
      })
      res.status(result.created ? 201 : 200).json(result.invoice)
    }),
  )

  router.get(
    '/invoices/:id',
    handle(async (req, res) => {
      const id = String(req.params.id)
      const invoice = await invoices.get(id)
      if (!invoice) throw notFound(id)
      res.json(invoice)
    }),
  )

  router.get(
    '/invoices',
    handle(async (req, res) => {
      const query = req.query as Record<string, string | undefined>
      const page = await invoices
        .list({ status: query.status, customer: query.customer, cursor: query.cursor, limit: query.limit })
        .catch((error: unknown) => {
          throw asApiError(error, inQuery)
        })
      res.json({ ...page, meta: { requestId: String(res.locals.requestId) } })
    }),
  )

  router.delete(
    '/invoices/:id',
    requireRole('admin'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const invoice = await invoices.void(id)
      if (!invoice) throw notFound(id)
      res.json(invoice)
    }),
  )
  return router
}
