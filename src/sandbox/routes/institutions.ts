import { Router } from 'express'
import { InstitutionListParams } from '../../api-client/index.js'
import { notFound, parseInput } from '../api-error.js'
import { requireScope } from '../auth.js'
import { searchInstitutions } from '../bank/index.js'
import type { SandboxContext } from '../context.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'

/** GET /v1/institutions (search, cursor-paginated, by name) and GET /v1/institutions/{id}; scope connections:read. */
export function institutionRoutes(ctx: SandboxContext): Router {
  const router = Router()
  const read = requireScope('connections:read')

  router.get(
    '/institutions',
    read,
    route((req, res) => {
      const query = parseInput(InstitutionListParams, req.query, 'query')
      const page = paginate(searchInstitutions(ctx.state.institutions, query.query), query)
      res.json({ data: page.data, pagination: page.pagination, meta: metaOf(res) })
    }),
  )

  router.get(
    '/institutions/:institutionId',
    read,
    route((req, res) => {
      const id = String(req.params.institutionId)
      const institution = ctx.state.institutions.find((i) => i.institutionId === id)
      if (!institution) throw notFound('institution', id)
      res.json(institution)
    }),
  )

  return router
}
