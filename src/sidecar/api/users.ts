import { Router } from 'express'
import { z } from 'zod'
import { RoleSchema } from '../../users/index.js'
import { handle, parseRequest } from '../api-error.js'
import { actorOf, identityOf, requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'

export const NewUser = z.strictObject({ name: z.string().max(200), role: RoleSchema })
export const RoleChange = z.strictObject({ role: RoleSchema })
export const Params = z.object({ name: z.string().min(1).max(200) })
export const Query = z.object({ includeRemoved: z.enum(['true', 'false']).default('false') })

/**
 * GET /api/me (who the token is) for anyone, and for admins the users: GET/POST /api/users, PATCH and DELETE
 * /api/users/{name}. A new user's token is in the POST's answer once; bankrec keeps only its SHA-256.
 */
export function userRoutes(context: SidecarContext): Router {
  const router = Router()
  router.get('/me', (_req, res) => {
    const { actor, via } = identityOf(res)
    res.json({ name: actor.name, role: actor.role, kind: actor.kind, via })
  })
  router.get(
    '/users',
    requireRole('admin'),
    handle(async (req, res) => {
      const query = parseRequest(Query, req.query, 'query')
      res.json({ data: await context.users.list({ includeRemoved: query.includeRemoved === 'true' }) })
    }),
  )
  router.post(
    '/users',
    requireRole('admin'),
    handle(async (req, res) => {
      const body = parseRequest(NewUser, req.body, 'body')
      const created = await context.users.add(body, actorOf(res))
      res.status(201).json(created)
    }),
  )
  router.patch(
    '/users/:name',
    requireRole('admin'),
    handle(async (req, res) => {
      const { name } = parseRequest(Params, req.params, 'params')
      const { role } = parseRequest(RoleChange, req.body, 'body')
      res.json(await context.users.setRole(name, role, actorOf(res)))
    }),
  )
  router.delete(
    '/users/:name',
    requireRole('admin'),
    handle(async (req, res) => {
      const { name } = parseRequest(Params, req.params, 'params')
      res.json(await context.users.remove(name, actorOf(res)))
    }),
  )
  return router
}
