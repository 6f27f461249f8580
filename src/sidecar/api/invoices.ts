import { Router } from 'express'
import { createInvoices } from '../../invoices/index.js'
import { presentDisposition } from '../../closing/index.js'
import { invoiceWriteOffsOf } from '../../store/index.js'
import { handle, SidecarApiError } from '../api-error.js'
import type { SidecarContext } from '../context.js'
import { requireRole } from '../auth/index.js'
import {
  csvBody,
  importCsvBody,
  inBody,
  inQuery,
  libraryError,
  objectBody,
  rejectImport,
} from './library-request.js'

function notFound(id: string): SidecarApiError {
  return new SidecarApiError(404, 'not_found', `No invoice ${JSON.stringify(id)}.`)
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
    csvBody(),
    handle(async (req, res) => {
      const result = await importCsvBody(req, res, (csv) => invoices.import(csv))
      if (!result.ok) return rejectImport(res, result)
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
      const body = objectBody(req.body, id, 'the invoice')
      const result = await invoices.upsert({ ...body, id }).catch((error: unknown) => {
        throw libraryError(error, inBody)
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
      // A person's write-offs of its open rest, every status (docs/closing.md).
      const writeOffs = await invoiceWriteOffsOf(context.store.db, id)
      res.json({ ...invoice, writeOffs: writeOffs.map(presentDisposition) })
    }),
  )

  router.get(
    '/invoices',
    handle(async (req, res) => {
      const query = req.query as Record<string, string | undefined>
      const page = await invoices
        .list({ status: query.status, customer: query.customer, cursor: query.cursor, limit: query.limit })
        .catch((error: unknown) => {
          throw libraryError(error, inQuery)
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
