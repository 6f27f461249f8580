import { Router } from 'express'
import { z } from 'zod'
import { Limit } from '../../api-client/index.js'
import { createCreditNotes } from '../../credit-notes/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { actorOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'
import { controlsOf } from '../controls-config.js'
import { inBody, libraryError, objectBody } from './library-request.js'

/** The list's query, checked like every list's: a repeated parameter (an array) is a 400 naming it. */
const ListQuery = z.object({
  invoiceId: z.string().min(1).max(255).optional(),
  after: z.string().min(1).max(255).optional(),
  limit: Limit.default(100),
})

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
      const { invoiceId, after, limit } = parseRequest(ListQuery, req.query, 'query')
      const data = await creditNotes.list({ invoiceId, after, limit })
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
