import { Router } from 'express'
import { z } from 'zod'
import type { ConnectionHealth, OpenIncident } from '../../alerts/index.js'
import {
  ConnectionCreateParams,
  ConnectionCredentialsParams,
  type Connection,
} from '../../api-client/index.js'
import { getConnectionHealth, listMirroredConnections } from '../../store/index.js'
import { handle, parseRequest, SidecarApiError } from '../api-error.js'
import { requireRole } from '../auth/index.js'
import type { SidecarContext } from '../context.js'

export const IdParams = z.object({ id: z.string().min(1).max(200) })

function presentIncident(incident: OpenIncident | null | undefined) {
  if (!incident) return null
  return {
    id: incident.id,
    kind: incident.kind,
    startedAt: incident.startedAt,
    lastAlertAt: incident.lastAlertAt,
    remindersSent: incident.remindersSent,
  }
}

/**
 * The mirror's connections with their health, and onboarding: thin calls to the bank. Credentials go to the bank
 * and nowhere else: never stored, logged or echoed.
 */
export function connectionRoutes(context: SidecarContext): Router {
  const router = Router()
  const { db } = context.store
  const { client } = context.bank

  /** A connection just read from the bank: mirrored, and its status and delegated user seen by health. */
  async function seen(connection: Connection): Promise<ConnectionHealth | undefined> {
    await context.connectionHealth.observeConnection(connection, 'poll')
    return (await getConnectionHealth(db, [connection.id])).get(connection.id)
  }

  // The status is the one connection health settled on, as in the list: a read older than an event already
  // applied does not show a status the list and the alerts have moved past.
  const answer = (connection: Connection, health: ConnectionHealth | undefined) => ({
    ...connection,
    ...(health?.status
      ? { status: health.status, errorCode: health.errorCode, errorMessage: health.errorMessage }
      : {}),
    openIncident: presentIncident(health?.incident),
  })

  router.get(
    '/connections',
    handle(async (_req, res) => {
      const rows = await listMirroredConnections(db)
      const health = await getConnectionHealth(
        db,
        rows.map((row) => row.id),
      )
      res.json({
        data: rows.map((row) => ({
          id: row.id,
          entityId: row.entity_id,
          kind: row.kind,
          status: row.status,
          institutionId: row.institution_id,
          institutionName: row.institution_name,
          portalUrl: row.portal_url,
          errorCode: row.error_code,
          errorMessage: row.error_message,
          lastSyncedAt: row.last_synced_at?.toISOString() ?? null,
          observedAt: row.observed_at.toISOString(),
          openIncident: presentIncident(health.get(row.id)?.incident),
        })),
        pagination: { hasMore: false, nextCursor: null },
      })
    }),
  )
  router.post(
    '/connections',
    requireRole('admin'),
    handle(async (req, res) => {
      const body = parseRequest(ConnectionCreateParams, req.body ?? {}, 'body')
      const connection = await client.connections.create(body)
      res.status(201).json(answer(connection, await seen(connection)))
    }),
  )
  router.get(
    '/connections/:id',
    handle(async (req, res) => {
      const { id } = parseRequest(IdParams, req.params, 'params')
      const connection = await client.connections.get(id)
      res.json(answer(connection, await seen(connection)))
    }),
  )
  router.put(
    '/connections/:id/credentials',
    requireRole('admin'),
    handle(async (req, res) => {
      const { id } = parseRequest(IdParams, req.params, 'params')
      const body = parseRequest(ConnectionCredentialsParams, req.body ?? {}, 'body')
      const connection = await client.connections.submitCredentials(id, body)
      res.json(answer(connection, await seen(connection)))
    }),
  )
  router.put(
    '/connections/:id/setupCompletion',
    requireRole('admin'),
    handle(async (req, res) => {
      const { id } = parseRequest(IdParams, req.params, 'params')
      const connection = await client.connections.completeSetup(id)
      res.json(answer(connection, await seen(connection)))
    }),
  )
  router.post(
    '/connections/:id/sync',
    requireRole('clerk'),
    handle(async (req, res) => {
      const { id } = parseRequest(IdParams, req.params, 'params')
      // Only a connection (the mirror's, else the bank's): anything else would queue a sync that can only fail.
      if (!(await context.requestKnownSync(id, 'api'))) {
        throw new SidecarApiError(404, 'not_found', `No connection ${JSON.stringify(id)} at the bank.`)
      }
      res.status(202).json({ connectionId: id, status: 'queued' })
    }),
  )
  return router
}
