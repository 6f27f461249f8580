import { Router } from 'express'
import { createCustomers } from '../../customers/index.js'
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

function notFound(what: string): SidecarApiError {
  return new SidecarApiError(404, 'not_found', `No ${what}.`)
}

/**
 * The customer master: PUT /api/customers/{id} (201 created, 200 otherwise), GET /api/customers/{id} (with what
 * a person's matches taught: `learned`), GET /api/customers (name, cursor, limit), POST /api/customers/import
 * (CSV, all or nothing) and DELETE /api/customers/{id}/learned/{linkId} (forget a learned link).
 */
export function customerRoutes(context: SidecarContext): Router {
  const router = Router()
  const customers = createCustomers(context)

  router.post(
    '/customers/import',
    requireRole('admin'),
    csvBody(),
    handle(async (req, res) => {
      const result = await importCsvBody(req, res, (csv) => customers.import(csv))
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
    '/customers/:id',
    requireRole('admin'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const body = objectBody(req.body, id, 'the customer')
      const result = await customers.upsert({ ...body, id }).catch((error: unknown) => {
        throw libraryError(error, inBody)
      })
      res.status(result.created ? 201 : 200).json(result.customer)
    }),
  )

  router.get(
    '/customers/:id',
    handle(async (req, res) => {
      const id = String(req.params.id)
      const customer = await customers.get(id)
      if (!customer) throw notFound(`customer ${JSON.stringify(id)}`)
      res.json(customer)
    }),
  )

  router.get(
    '/customers',
    handle(async (req, res) => {
      const query = req.query as Record<string, string | undefined>
      const page = await customers
        .list({ name: query.name, cursor: query.cursor, limit: query.limit })
        .catch((error: unknown) => {
          throw libraryError(error, inQuery)
        })
      res.json({ ...page, meta: { requestId: String(res.locals.requestId) } })
    }),
  )

  router.delete(
    '/customers/:id/learned/:linkId',
    requireRole('clerk'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const link = await customers.forget(id, String(req.params.linkId))
      if (!link)
        throw notFound(
          `learned link ${JSON.stringify(String(req.params.linkId))} of customer ${JSON.stringify(id)}`,
        )
      res.json(link)
    }),
  )
  return router
}
