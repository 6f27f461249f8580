import { Router, type Request, type Response } from 'express'
import { z } from 'zod'
import { IdempotencyKey, TransferCreateParams } from '../../api-client/index.js'
import { ApiError, notFound, parseInput } from '../api-error.js'
import { callerOf, requireScope } from '../auth.js'
import type { SandboxContext } from '../context.js'
import { route } from '../http.js'
import { findReplay, rememberResponse, type IdempotencyOperation } from '../idempotency.js'
import { presentTransfer } from '../present-transfer.js'
import type { AccountRecord } from '../state.js'
import { createTransfer, retryTransfer } from '../transfer-lifecycle.js'

type Outcome = { status: number; body: unknown }

const IdempotencyKeyHeader = z.object({ 'Idempotency-Key': IdempotencyKey })

/**
 * Runs an operation under the optional Idempotency-Key header: an identical retry within the window answers the
 * first response again (with Idempotent-Replayed: true); only responses of requests that took effect are kept.
 */
function idempotent(
  ctx: SandboxContext,
  req: Request,
  res: Response,
  operation: IdempotencyOperation,
  payload: unknown,
  run: () => Outcome,
): void {
  const header = req.get('idempotency-key')
  const key =
    header === undefined
      ? undefined
      : parseInput(IdempotencyKeyHeader, { 'Idempotency-Key': header }, 'header')['Idempotency-Key']
  const request = key && { orgId: callerOf(res).orgId, operation, key, payload, now: ctx.clock.now() }
  const replay = request ? findReplay(ctx.state, request) : undefined
  if (replay) {
    res.setHeader('Idempotent-Replayed', 'true')
    res.status(replay.status).json(replay.body)
    return
  }
  const outcome = run()
  if (request) rememberResponse(ctx.state, request, outcome.status, outcome.body)
  res.status(outcome.status).json(outcome.body)
}

function invalid(path: string, message: string): ApiError {
  return new ApiError(400, 'validation_error', `Invalid body: ${path} ${message}`, [{ path, message }])
}

/** POST /v1/transfers, GET /v1/transfers/{id}, POST /v1/transfers/{id}/retry; scopes transfers:read/write. */
export function transferRoutes(ctx: SandboxContext): Router {
  const router = Router()

  const ownAccount = (orgId: string, id: string, path: string): AccountRecord => {
    const account = ctx.state.accounts.get(id)
    if (!account || account.orgId !== orgId) {
      throw new ApiError(404, 'not_found', `No account with id ${JSON.stringify(id)}.`, [
        { path, message: 'no such account' },
      ])
    }
    if (account.status === 'closed') throw invalid(path, 'the account is closed')
    return account
  }

  const ownTransfer = (res: Response, id: string) => {
    const transfer = ctx.state.transfers.get(id)
    if (!transfer || transfer.orgId !== callerOf(res).orgId) throw notFound('transfer', id)
    return transfer
  }

  router.post(
    '/transfers',
    requireScope('transfers:write'),
    route((req, res) => {
      const params = parseInput(TransferCreateParams, req.body, 'body')
      const { orgId } = callerOf(res)
      const payload = {
        ...params,
        executionDate: params.executionDate ?? null,
        memo: params.memo ?? null,
        skipPreflight: params.skipPreflight ?? false,
      }
      idempotent(ctx, req, res, 'transfers.create', payload, () => {
        const source = ownAccount(orgId, params.sourceAccountId, 'body.sourceAccountId')
        const destination = ownAccount(orgId, params.destination.accountId, 'body.destination.accountId')
        if (source.id === destination.id) {
          throw invalid('body.destination.accountId', 'must differ from sourceAccountId')
        }
        if (params.amount.currency !== source.currency) {
          throw invalid('body.amount.currency', `must be the source account's currency ${source.currency}`)
        }
        if (params.amount.currency !== destination.currency) {
          throw invalid(
            'body.amount.currency',
            `must be the destination account's currency ${destination.currency}: internal transfers do not convert`,
          )
        }
        if (
          payload.executionDate !== null &&
          payload.executionDate < ctx.clock.now().toISOString().slice(0, 10)
        ) {
          throw invalid('body.executionDate', 'must not be in the past')
        }
        const transfer = createTransfer(ctx, {
          orgId,
          amount: { type: 'money', value: params.amount.value, currency: params.amount.currency },
          source,
          destination,
          destinationType: params.destination.type,
          clientReference: params.clientReference,
          memo: payload.memo,
          executionDate: payload.executionDate,
          skipPreflight: payload.skipPreflight,
        })
        return { status: 201, body: presentTransfer(transfer) }
      })
    }),
  )

  router.get(
    '/transfers/:id',
    requireScope('transfers:read'),
    route((req, res) => {
      res.json(presentTransfer(ownTransfer(res, String(req.params.id))))
    }),
  )

  router.post(
    '/transfers/:id/retry',
    requireScope('transfers:write'),
    route((req, res) => {
      const id = String(req.params.id)
      idempotent(ctx, req, res, 'transfers.retry', { id }, () => {
        const transfer = ownTransfer(res, id)
        retryTransfer(ctx, transfer)
        return { status: 200, body: presentTransfer(transfer) }
      })
    }),
  )

  return router
}
