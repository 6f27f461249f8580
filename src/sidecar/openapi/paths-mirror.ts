import { z } from 'zod'
import * as bank from '../../api-client/index.js'
import * as accounts from '../api/accounts.js'
import * as alerts from '../api/alerts.js'
import * as audit from '../api/audit.js'
import * as balanceProof from '../api/balance-proof.js'
import * as connections from '../api/connections.js'
import * as transactions from '../api/transactions.js'
import * as transfers from '../api/transfers.js'
import * as users from '../api/users.js'
import { operation } from './operation.js'
import * as out from './response-schemas.js'

const ok = (description: string, body?: z.ZodType | Record<string, z.ZodType>) => ({ description, body })
const IdParams = z.object({ id: z.string().min(1) })

/** The mirror, onboarding, transfers and operations: /api paths as OpenAPI path items. */
export const mirrorPaths = {
  '/openapi.json': {
    get: operation({
      tag: 'meta',
      summary: "This document: bankrec's own API (not the bank's)",
      public: true,
      responses: { 200: ok('The OpenAPI 3.1 document', z.looseObject({ openapi: z.string() })) },
    }),
  },
  '/me': {
    get: operation({
      tag: 'users',
      summary: 'Who the token is',
      responses: { 200: ok('The caller', out.Me) },
    }),
  },
  '/users': {
    get: operation({
      tag: 'users',
      summary: 'The users',
      role: 'admin',
      query: users.Query,
      responses: { 200: ok('Users', z.looseObject({ data: z.array(out.User) })) },
    }),
    post: operation({
      tag: 'users',
      summary: 'Add a user; the answer holds its token, once',
      role: 'admin',
      body: users.NewUser,
      conflict: true,
      responses: { 201: ok('The user and its token', z.looseObject({ user: out.User, token: z.string() })) },
    }),
  },
  '/users/{name}': {
    patch: operation({
      tag: 'users',
      summary: "Change a user's role",
      role: 'admin',
      path: users.Params,
      body: users.RoleChange,
      responses: { 200: ok('The user', out.User) },
    }),
    delete: operation({
      tag: 'users',
      summary: 'Remove a user (its token stops working)',
      role: 'admin',
      path: users.Params,
      responses: { 200: ok('The removed user', out.User) },
    }),
  },
  '/audit': {
    get: operation({
      tag: 'users',
      summary: 'Who did what, newest first',
      query: audit.Query,
      responses: { 200: ok('A page of audit entries', out.page(out.AuditEntry)) },
    }),
  },
  '/connections': {
    get: operation({
      tag: 'connections',
      summary: 'The mirrored connections with their health',
      responses: { 200: ok('Connections', out.page(out.MirroredConnection)) },
    }),
    post: operation({
      tag: 'connections',
      summary: 'Start onboarding a connection at the bank',
      role: 'admin',
      body: bank.ConnectionCreateParams,
      responses: { 201: ok('The new connection', out.ConnectionAnswer) },
    }),
  },
  '/connections/{id}': {
    get: operation({
      tag: 'connections',
      summary: "A connection as the bank has it now, with bankrec's health",
      path: connections.IdParams,
      responses: { 200: ok('The connection', out.ConnectionAnswer) },
    }),
  },
  '/connections/{id}/credentials': {
    put: operation({
      tag: 'connections',
      summary: "Submit a delegated user's credentials to the bank (never stored)",
      role: 'admin',
      path: connections.IdParams,
      body: bank.ConnectionCredentialsParams,
      responses: { 200: ok('The connection', out.ConnectionAnswer) },
    }),
  },
  '/connections/{id}/setupCompletion': {
    put: operation({
      tag: 'connections',
      summary: 'Mark a setup connection complete',
      role: 'admin',
      path: connections.IdParams,
      responses: { 200: ok('The connection', out.ConnectionAnswer) },
    }),
  },
  '/connections/{id}/sync': {
    post: operation({
      tag: 'connections',
      summary: 'Queue a sync of the connection',
      role: 'clerk',
      path: connections.IdParams,
      responses: {
        202: ok('Queued', z.looseObject({ connectionId: z.string(), status: z.literal('queued') })),
      },
    }),
  },
  '/overview': {
    get: operation({
      tag: 'operations',
      summary: 'Queue depth and age, sync lag, deliveries and the latest events',
      responses: { 200: ok('The overview', out.Overview) },
    }),
  },
  '/alerts': {
    get: operation({
      tag: 'operations',
      summary: 'Notices sent to operations, newest first, with their deliveries',
      query: alerts.Query,
      responses: { 200: ok('A page of notices', out.page(out.AlertNotice)) },
    }),
  },
  '/transactions': {
    get: operation({
      tag: 'mirror',
      summary: "The mirrored transactions in the bank API's shape",
      query: transactions.Query,
      responses: { 200: ok('A page of transactions', bank.listResponse(bank.Transaction)) },
    }),
  },
  '/accounts': {
    get: operation({
      tag: 'mirror',
      summary: "The mirrored accounts in the bank API's shape",
      query: accounts.Query,
      responses: { 200: ok('A page of accounts', bank.listResponse(bank.Account)) },
    }),
  },
  '/balance-proof': {
    get: operation({
      tag: 'mirror',
      summary: "Per account and day, whether the mirror adds up to the bank's balances",
      query: balanceProof.Query,
      responses: { 200: ok('The proof, streamed', out.BalanceProof) },
    }),
  },
  '/transfers': {
    get: operation({
      tag: 'transfers',
      summary: "bankrec's transfer records, newest first",
      query: transfers.ListQuery,
      responses: { 200: ok('A page of transfers', out.page(out.Transfer)) },
    }),
    post: operation({
      tag: 'transfers',
      summary: 'Initiate a transfer (Idempotency-Key honoured)',
      role: 'admin',
      body: bank.TransferCreateParams,
      responses: {
        200: ok('A replay of an earlier request with the same key', out.Transfer),
        201: ok('The transfer', out.Transfer),
      },
    }),
  },
  '/transfers/{id}': {
    get: operation({
      tag: 'transfers',
      summary: "A transfer by bankrec's id or the bank's",
      path: IdParams,
      responses: { 200: ok('The transfer', out.Transfer) },
    }),
  },
  '/transfers/{id}/retry': {
    post: operation({
      tag: 'transfers',
      summary: 'Retry a transfer whose outcome is unknown',
      role: 'admin',
      path: IdParams,
      responses: { 200: ok('The transfer', out.Transfer) },
    }),
  },
}
