import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { createAccountsResource, type AccountsResource } from './accounts.js'
import { createBalancesResource, type BalancesResource } from './balances.js'
import { createConnectionsResource, type ConnectionsResource } from './connections.js'
import { createHttpClient, type HttpClientOptions } from './http.js'
import { createInstitutionsResource, type InstitutionsResource } from './institutions.js'
import { createTransactionsResource, type TransactionsResource } from './transactions.js'
import { createTransfersResource, type TransfersResource } from './transfers.js'
import { validateParams } from './validate-params.js'
import { createWebhooksResource, type WebhooksResource } from './webhooks.js'

export type BankClientOptions = HttpClientOptions & {
  /** Makes the Idempotency-Key of a transfer write when the caller gives none. @defaultValue crypto.randomUUID */
  generateIdempotencyKey?: () => string
  /**
   * Lets webhooks.create/update register http:// URLs on a loopback host, as a sandbox started with
   * --allow-http-webhooks accepts. The service itself takes HTTPS only. @defaultValue false
   */
  allowHttpLoopbackWebhooks?: boolean
}

export type BankClient = {
  institutions: InstitutionsResource
  connections: ConnectionsResource
  accounts: AccountsResource
  balances: BalancesResource
  transactions: TransactionsResource
  transfers: TransfersResource
  webhooks: WebhooksResource
}

const ClientOptions = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1),
  timeoutMs: z.number().int().positive().optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
})

/**
 * A typed client for every endpoint of the Bank Connectivity Service, one namespace per resource:
 * `client.transactions.listAll({ connectionId })`, `client.transfers.create({...})`.
 */
export function createBankClient(options: BankClientOptions): BankClient {
  validateParams(ClientOptions, {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
  })
  const http = createHttpClient(options)
  return {
    institutions: createInstitutionsResource(http),
    connections: createConnectionsResource(http),
    accounts: createAccountsResource(http),
    balances: createBalancesResource(http),
    transactions: createTransactionsResource(http),
    transfers: createTransfersResource(http, {
      generateIdempotencyKey: options.generateIdempotencyKey ?? randomUUID,
    }),
    webhooks: createWebhooksResource(http, {
      allowHttpLoopbackUrls: options.allowHttpLoopbackWebhooks ?? false,
    }),
  }
}
