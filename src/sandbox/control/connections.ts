import { Router } from 'express'
import { z } from 'zod'
import { ConnectionStatus } from '../../api-client/index.js'
import { notFound, parseInput } from '../api-error.js'
import {
  activateConnection,
  presentConnection,
  scheduleActivation,
  setConnectionStatus,
} from '../bank/index.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'

const StatusBody = z.object({
  status: ConnectionStatus,
  errorCode: z.string().min(1).max(200).nullish(),
  errorMessage: z.string().min(1).max(2000).nullish(),
})

/**
 * POST /_sandbox/connections/{id}/status {status, errorCode?, errorMessage?}: forces any status (a change emits
 * connection.status_changed). Without errorCode/errorMessage a problem status gets a default error. Forcing
 * active on a setup-stage connection activates it at once (accounts and the initial sync, as the service would);
 * forcing pendingActivation on one schedules its activation.
 */
export function connectionControl(runtime: SandboxRuntime): Router {
  const router = Router()
  router.post(
    '/connections/:connectionId/status',
    route((req, res) => {
      const { ctx } = runtime
      const id = String(req.params.connectionId)
      const record = ctx.state.connections.get(id)
      if (!record) throw notFound('connection', id)
      const body = parseInput(StatusBody, req.body ?? {}, 'body')
      if (body.status === 'active' && record.kind === 'setup') {
        activateConnection(ctx, record, ctx.clock.now())
      } else {
        const wasPending = record.status === 'pendingActivation'
        setConnectionStatus(ctx, record, body.status, { code: body.errorCode, message: body.errorMessage })
        if (body.status === 'pendingActivation' && record.kind === 'setup' && !wasPending) {
          scheduleActivation(ctx, record, ctx.clock.now())
        }
      }
      res.json(presentConnection(record))
    }),
  )
  return router
}
