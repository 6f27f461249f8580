import { Router, type Response } from 'express'
import {
  ConnectionCreateParams,
  ConnectionCredentialsParams,
  ConnectionListParams,
} from '../../api-client/index.js'
import { notFound, parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import {
  completeSetup,
  createConnection,
  deleteConnection,
  presentConnection,
  requestSync,
  submitCredentials,
} from '../bank/index.js'
import type { SandboxContext } from '../context.js'
import { metaOf, route } from '../http.js'
import { paginate } from '../list-cursor.js'

/** The connection endpoints of the seed; scopes connections:read and connections:write. */
export function connectionRoutes(ctx: SandboxContext): Router {
  const router = Router()
  const read = requireScope('connections:read')
  const write = requireScope('connections:write')

  const ownConnection = (res: Response, id: string) => {
    const record = ctx.state.connections.get(id)
    if (!record || record.orgId !== callerOf(res).orgId) throw notFound('connection', id)
    return record
  }
  // PUT bodies are optional (setupCompletion and sync take none); an absent body parses as {}.
  const bodyOf = (body: unknown) => body ?? {}

  router.post(
    '/connections',
    write,
    route((req, res) => {
      const params = parseInput(ConnectionCreateParams, bodyOf(req.body), 'body')
      const { record, created } = createConnection(ctx, callerOf(res).orgId, params)
      res.status(created ? 201 : 200).json(presentConnection(record))
    }),
  )

  router.get(
    '/connections',
    read,
    route((req, res) => {
      const query = parseInput(ConnectionListParams, req.query, 'query')
      const { orgId } = callerOf(res)
      // Newest first; connections created at the same instant keep their reverse creation order.
      const matching = [...ctx.state.connections.values()]
        .filter(
          (c) =>
            c.orgId === orgId &&
            (query.status === undefined || c.status === query.status) &&
            (query.institutionId === undefined || c.institutionId === query.institutionId) &&
            (query.entityId === undefined || c.entityId === query.entityId),
        )
        .reverse()
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      const page = paginate(matching, query)
      res.json({ data: page.data.map(presentConnection), pagination: page.pagination, meta: metaOf(res) })
    }),
  )

  router.get(
    '/connections/:connectionId',
    read,
    route((req, res) => {
      res.json(presentConnection(ownConnection(res, String(req.params.connectionId))))
    }),
  )

  router.put(
    '/connections/:connectionId/credentials',
    write,
    route((req, res) => {
      const record = ownConnection(res, String(req.params.connectionId))
      const params = parseInput(ConnectionCredentialsParams, bodyOf(req.body), 'body')
      submitCredentials(ctx, record, params)
      res.json(presentConnection(record))
    }),
  )

  router.put(
    '/connections/:connectionId/setupCompletion',
    write,
    route((req, res) => {
      const record = ownConnection(res, String(req.params.connectionId))
      completeSetup(ctx, record)
      res.json(presentConnection(record))
    }),
  )

  router.put(
    '/connections/:connectionId/sync',
    write,
    route((req, res) => {
      const record = ownConnection(res, String(req.params.connectionId))
      requestSync(ctx, record)
      res.status(202).json({ connectionId: record.id, status: 'queued', meta: metaOf(res) })
    }),
  )

  router.delete(
    '/connections/:connectionId',
    write,
    route((req, res) => {
      deleteConnection(ctx, ownConnection(res, String(req.params.connectionId)))
      res.status(204).end()
    }),
  )

  return router
}
