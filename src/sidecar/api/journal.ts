import { Router } from 'express'
import { exportJournal, JournalRequest } from '../../journal/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'

const CONTENT_TYPES = {
  json: 'application/json',
  csv: 'text/csv; charset=utf-8',
  'qbo-csv': 'text/csv; charset=utf-8',
  'xero-csv': 'text/csv; charset=utf-8',
} as const

/** GET /api/journal?from=&to=&format=json|csv|qbo-csv|xero-csv: the double entries of the days asked. */
export function journalRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/journal',
    handle(async (req, res) => {
      const request = parseRequest(JournalRequest, req.query, 'query')
      const { body } = await exportJournal(context.store.db, request)
      res.type(CONTENT_TYPES[request.format])
      if (request.format !== 'json') {
        const name = `journal-${String(req.query.from)}-${String(req.query.to)}-${request.format}.csv`
        res.setHeader('content-disposition', `attachment; filename="${name}"`)
      }
      res.send(body)
    }),
  )
  return router
}
