import { Router } from 'express'
import { createCreditNotes } from '../../credit-notes/index.js'
import { handle, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { controlsOf } from '../controls-config.js'
import { inBody, libraryError, objectBody } from './library-request.js'

function notFound(id: string): SidecarApiError {
  return new SidecarApiError(404, 'not_found', `No credit note ${JSON.stringify(id)}.`)
}

/**
 * PUT /api/credit-notes/{id} (201 in force, 202 waiting for approval, 200 the same note again; 400 naming the
 * field when it cannot net against its invoice), GET /api/credit-notes/{id}, GET /api/credit-notes (invoiceId,
 * after, limit), DELETE /api/credit-notes/{id} (void, or withdraw a waiting one), POST
 * /api/credit-notes/{id}/approve|decline. A clerk may write them; the approval policy decides who approves.
 */
export function creditNoteRoutes(context: SidecarContext): Router {
  const router = Router()
  const creditNotes = createCreditNotes({ ...context, controls: controlsOf(context.config) })

  router.put(
    '/credit-notes/:id',
    requireRole('clerk'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const body = objectBody(req.body, id, 'the credit note')
      const result = await creditNotes.upsert({ ...body, id }, actorOf(res)).catch((error: unknown) => {
        throw libraryError(error, inBody)
      })
      const waits = result.creditNote.status === 'pending_approval'
      res.status(result.created ? (waits ? 202 : 201) : 200).json(result.creditNote)
    }),
  )

  router.get(
    '/credit-notes/:id',
    handle(async (req, res) => {
      const id = String(req.params.id)
      const note = await creditNotes.get(id)
      if (!note) throw notFound(id)
      res.json(note)
    }),
  )

  router.get(
    '/credit-notes',
    handle(async (req, res) => {
      const query = req.query as Record<string, string | undefined>
      const limit = query.limit === undefined ? 100 : Number(query.limit)
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
        throw new SidecarApiError(400, 'validation_error', 'query.limit must be a whole number from 1 to 500')
      }
      const data = await creditNotes.list({ invoiceId: query.invoiceId, after: query.after, limit })
      res.json({ data, meta: { requestId: String(res.locals.requestId) } })
    }),
  )

  router.delete(
    '/credit-notes/:id',
    requireRole('clerk'),
    handle(async (req, res) => {
      const id = String(req.params.id)
      const note = await creditNotes.void(id, actorOf(res))
      if (!note) throw notFound(id)
      res.json(note)
    }),
  )

  for (const decision of ['approve', 'decline'] as const) {
    router.post(
      `/credit-notes/:id/${decision}`,
      requireRole('clerk'),
      handle(async (req, res) => {
        const id = String(req.params.id)
        const note = await creditNotes.decide(id, decision, actorOf(res))
        if (!note) throw notFound(id)
        res.json(note)
      }),
    )
  }
  return router
}
