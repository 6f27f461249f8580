import { Decimal } from 'decimal.js'
import { Router } from 'express'
import { z } from 'zod'
import {
  CurrencyCode,
  DecimalString,
  EntryType,
  IsoDate,
  Rail,
  TransactionStatus,
  Uuid,
} from '../../api-client/index.js'
import { ApiError, notFound, parseInput } from '../api-error.js'
import type { SandboxRuntime } from '../context.js'
import { route } from '../http.js'
import { addTransaction, modifyTransaction, removeTransaction } from '../ledger.js'
import { presentTransaction } from '../present-transaction.js'

const text = z.string().max(1000).nullable().optional()

/** Every transaction field the bank may report or change; identifiers and updatedAt are the bank's own. */
const MutableFields = {
  postedDate: IsoDate.optional(),
  amount: DecimalString.optional(),
  currency: CurrencyCode.optional(),
  status: TransactionStatus.optional(),
  entryType: EntryType.optional(),
  rail: Rail.optional(),
  description: text,
  rawDescription: text,
  customerReference: text,
  bankReference: text,
  paymentReference: text,
  baiCode: text,
  category: text,
  subcategory: text,
  mcc: text,
  merchantName: text,
  counterpartyName: text,
  counterpartyAccountMasked: text,
}

const CreateBody = z.strictObject({ ...MutableFields, accountId: Uuid.optional(), amount: DecimalString })

const IMMUTABLE = ['id', 'connectionId', 'accountId', 'updatedAt']

const PatchBody = z
  .record(z.string(), z.unknown())
  .superRefine((body, issue) => {
    for (const name of IMMUTABLE) {
      if (name in body) issue.addIssue({ code: 'custom', path: [name], message: `${name} is immutable` })
    }
  })
  .pipe(z.strictObject(MutableFields))
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' })

const entryTypeOf = (amount: string) => (new Decimal(amount).isNegative() ? 'debit' : 'credit')

/**
 * POST /_sandbox/connections/{id}/transactions, PATCH and DELETE /_sandbox/transactions/{id}. Changes go through
 * the ledger, so they enter the sync stream and a transactions.sync_available follows, as if the bank reported
 * them.
 */
export function transactionControl(runtime: SandboxRuntime): Router {
  const router = Router()

  router.post(
    '/connections/:id/transactions',
    route((req, res) => {
      const { ctx } = runtime
      const connectionId = String(req.params.id)
      if (!ctx.state.connections.has(connectionId)) throw notFound('connection', connectionId)
      const body = parseInput(CreateBody, req.body, 'body')
      const accounts = [...ctx.state.accounts.values()].filter((a) => a.connectionId === connectionId)
      const account = body.accountId ? ctx.state.accounts.get(body.accountId) : accounts[0]
      if (body.accountId && account?.connectionId !== connectionId) {
        throw new ApiError(
          404,
          'not_found',
          `No account ${JSON.stringify(body.accountId)} on connection ${connectionId}.`,
          [{ path: 'body.accountId', message: 'no such account on this connection' }],
        )
      }
      if (!account) {
        throw new ApiError(
          409,
          'connection_has_no_accounts',
          'The connection has no accounts yet; finish its setup (kind=ready) first.',
        )
      }
      const entryType = body.entryType ?? entryTypeOf(body.amount)
      const counterparty = body.counterpartyName ?? null
      const description =
        body.description ??
        (counterparty
          ? `Payment ${entryType === 'credit' ? 'from' : 'to'} ${counterparty}`
          : `${entryType === 'credit' ? 'Incoming' : 'Outgoing'} payment`)
      const record = addTransaction(ctx, {
        ...body,
        id: ctx.random.uuid(),
        connectionId,
        accountId: account.id,
        postedDate: body.postedDate ?? ctx.clock.now().toISOString().slice(0, 10),
        currency: body.currency ?? account.currency,
        status: body.status ?? 'posted',
        entryType,
        rail: body.rail ?? 'ach',
        description,
        rawDescription: body.rawDescription ?? description.toUpperCase(),
        bankReference: body.bankReference ?? `SBX${ctx.random.hex(8).toUpperCase()}`,
        counterpartyName: counterparty,
      })
      res.status(201).json(presentTransaction(record))
    }),
  )

  router.patch(
    '/transactions/:id',
    route((req, res) => {
      const { ctx } = runtime
      const id = String(req.params.id)
      if (!ctx.state.transactions.has(id)) throw notFound('transaction', id)
      const changes = parseInput(PatchBody, req.body, 'body')
      const entryType = changes.entryType ?? (changes.amount ? entryTypeOf(changes.amount) : undefined)
      const record = modifyTransaction(ctx, id, { ...changes, ...(entryType ? { entryType } : {}) })
      res.json(presentTransaction(record))
    }),
  )

  router.delete(
    '/transactions/:id',
    route((req, res) => {
      const { ctx } = runtime
      const id = String(req.params.id)
      if (!ctx.state.transactions.has(id)) throw notFound('transaction', id)
      removeTransaction(ctx, id)
      res.status(204).end()
    }),
  )

  return router
}
