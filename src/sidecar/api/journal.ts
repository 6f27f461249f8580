import { Router } from 'express'
import { exportJournal, JOURNAL_FILES, JournalRequest } from '../../journal/index.js'
import { handle, parseRequest } from '../api-error.js'
import type { SidecarContext } from '../context.js'

/**
 * GET /api/journal?from=&to=&format=json|csv|qbo-csv|xero-csv|qbo-payments|xero-payments|datev, with account=
 * and currency= to keep one bank account's or one currency's entries: the double entries of the days asked, or
 * the file an accounting system imports (docs/closing.md#journal).
 */
export function journalRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get(
    '/journal',
    handle(async (req, res) => {
      const request = parseRequest(JournalRequest, req.query, 'query')
      const { body } = await exportJournal(context.store.db, request, { now: context.clock.now() })
      const file = JOURNAL_FILES[request.format]
      res.type(file.contentType)
      if (request.format !== 'json') {
        const scope = [request.currency, request.account].filter(Boolean).join('-')
        const name = `journal-${String(req.query.from)}-${String(req.query.to)}${scope ? `-${scope}` : ''}-${request.format}.${file.extension}`
        res.setHeader('content-disposition', `attachment; filename="${name}"`)
      }
      res.send(body)
    }),
  )
  return router
}
