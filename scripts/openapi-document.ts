import { z } from 'zod'
import * as api from '../src/api-client/index.js'
import { ErrorCodes } from '../src/api-client/index.js'

/**
 * The OpenAPI 3.1 document of the Bank Connectivity Service as the sandbox serves it, generated from the
 * api-client zod schemas (the contract) with zod's own z.toJSONSchema, so the two cannot drift apart.
 */

type JsonObject = Record<string, unknown>
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const RESPONSE_REF = (name: string) => ({ $ref: `#/components/responses/${name}` })

const eventOf = <T extends z.ZodType>(type: string, data: T) =>
  api.EventEnvelope.extend({ type: z.literal(type), data })

/** Response-side schemas, converted as the server produces them (io: output). */
const responseSchemas = {
  ErrorBody: api.ErrorBody,
  Pagination: api.Pagination,
  MoneyAmount: api.MoneyAmount,
  Metadata: api.Metadata,
  Institution: api.Institution,
  InstitutionStatus: api.InstitutionStatus,
  InstitutionList: api.listResponse(api.Institution),
  ConnectionStatus: api.ConnectionStatus,
  SetupInstructions: api.SetupInstructions,
  SetupConnection: api.SetupConnection,
  ReadyConnection: api.ReadyConnection,
  Connection: api.Connection,
  ConnectionList: api.listResponse(api.Connection),
  ConnectionSyncAccepted: api.ConnectionSyncAccepted,
  AccountType: api.AccountType,
  PaymentIdentifier: api.PaymentIdentifier,
  Account: api.Account,
  AccountList: api.listResponse(api.Account),
  AccountBalance: api.AccountBalance,
  BalanceList: api.listResponse(api.AccountBalance),
  TransactionStatus: api.TransactionStatus,
  Rail: api.Rail,
  Transaction: api.Transaction,
  TransactionList: api.listResponse(api.Transaction),
  SyncEvent: api.SyncEvent,
  SyncResponse: api.SyncResponse,
  TransferStatus: api.TransferStatus,
  Transfer: api.Transfer,
  WebhookEventType: api.WebhookEventType,
  WebhookRegistration: api.WebhookRegistration,
  WebhookList: api.listResponse(api.WebhookRegistration),
  WebhookTestResult: api.WebhookTestResult,
  EventEnvelope: api.EventEnvelope,
  ConnectionStatusChangedEvent: eventOf('connection.status_changed', api.ConnectionStatusChangedData),
  SyncAvailableEvent: eventOf('transactions.sync_available', api.SyncAvailableData),
  TestEvent: eventOf('test', api.TestEventData),
} satisfies Record<string, z.ZodType>

/** Request bodies, converted as the server accepts them (io: input: defaults make fields optional). */
const requestSchemas = {
  ConnectionCreateParams: api.ConnectionCreateParams,
  ConnectionCredentialsParams: api.ConnectionCredentialsParams,
  TransferCreateParams: api.TransferCreateParams,
  WebhookCreateParams: api.WebhookCreateParams,
  WebhookUpdateParams: api.WebhookUpdateParams,
} satisfies Record<string, z.ZodType>

type ResponseName = keyof typeof responseSchemas
type RequestName = keyof typeof requestSchemas

type Operation = {
  method: Method
  path: string
  operationId: string
  tag: string
  summary: string
  scope: string
  query?: z.ZodObject
  pathParams?: Record<string, z.ZodType>
  idempotent?: boolean
  body?: RequestName
  /** Success responses: status → schema name (none for an empty body). */
  ok: Record<string, { description: string; schema?: ResponseName }>
  /** Error statuses beyond the ones every operation can answer (401, 403, 429, 500, 503). */
  errors?: Array<'400' | '404' | '409' | '410'>
}

const id = z.string().min(1)

/** Every operation of the seed, plus the webhook paths and get-transaction it leaves unnamed. */
export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/v1/institutions',
    operationId: 'listInstitutions',
    tag: 'Institutions',
    summary: 'Search the institution catalog (name, alternative name, id, portal URL or domain)',
    scope: 'connections:read',
    query: api.InstitutionListParams,
    ok: { '200': { description: 'A page of institutions.', schema: 'InstitutionList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/institutions/{institutionId}',
    operationId: 'getInstitution',
    tag: 'Institutions',
    summary: 'Get an institution',
    scope: 'connections:read',
    pathParams: { institutionId: id },
    ok: { '200': { description: 'The institution.', schema: 'Institution' } },
    errors: ['404'],
  },
  {
    method: 'post',
    path: '/v1/connections',
    operationId: 'createConnection',
    tag: 'Connections',
    summary: 'Create a connection by entityId plus institutionId and/or an HTTPS portalUrl',
    scope: 'connections:write',
    body: 'ConnectionCreateParams',
    ok: {
      '201': { description: 'A new connection (kind setup or ready).', schema: 'Connection' },
      '200': { description: 'The existing connection of this entity and portal.', schema: 'Connection' },
    },
    errors: ['400', '404', '409'],
  },
  {
    method: 'get',
    path: '/v1/connections',
    operationId: 'listConnections',
    tag: 'Connections',
    summary: 'List connections, newest first',
    scope: 'connections:read',
    query: api.ConnectionListParams,
    ok: { '200': { description: 'A page of connections.', schema: 'ConnectionList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/connections/{connectionId}',
    operationId: 'getConnection',
    tag: 'Connections',
    summary: 'Get a connection (kind=ready shape when ready)',
    scope: 'connections:read',
    pathParams: { connectionId: id },
    ok: { '200': { description: 'The connection.', schema: 'Connection' } },
    errors: ['404'],
  },
  {
    method: 'put',
    path: '/v1/connections/{connectionId}/credentials',
    operationId: 'putConnectionCredentials',
    tag: 'Connections',
    summary: 'Submit bank credentials',
    scope: 'connections:write',
    pathParams: { connectionId: id },
    body: 'ConnectionCredentialsParams',
    ok: { '200': { description: 'The connection, kind setup.', schema: 'Connection' } },
    errors: ['400', '404', '409'],
  },
  {
    method: 'put',
    path: '/v1/connections/{connectionId}/setupCompletion',
    operationId: 'completeConnectionSetup',
    tag: 'Connections',
    summary: 'Mark setup complete; the service finishes activation and starts the initial sync',
    scope: 'connections:write',
    pathParams: { connectionId: id },
    ok: { '200': { description: 'The connection, kind setup.', schema: 'Connection' } },
    errors: ['404', '409'],
  },
  {
    method: 'put',
    path: '/v1/connections/{connectionId}/sync',
    operationId: 'syncConnection',
    tag: 'Connections',
    summary: 'Queue a sync (409 in setup or while one runs; 429 within the 45-minute cooldown)',
    scope: 'connections:write',
    pathParams: { connectionId: id },
    ok: { '202': { description: 'The sync job is queued.', schema: 'ConnectionSyncAccepted' } },
    errors: ['404', '409'],
  },
  {
    method: 'delete',
    path: '/v1/connections/{connectionId}',
    operationId: 'deleteConnection',
    tag: 'Connections',
    summary: 'Hard-delete a connection with its accounts and transactions',
    scope: 'connections:write',
    pathParams: { connectionId: id },
    ok: { '204': { description: 'Deleted.' } },
    errors: ['404', '409'],
  },
  {
    method: 'get',
    path: '/v1/accounts',
    operationId: 'listAccounts',
    tag: 'Accounts',
    summary: 'List accounts (fields= sparse fieldset; identifiers always included)',
    scope: 'accounts:read',
    query: api.AccountListParams,
    ok: { '200': { description: 'A page of accounts.', schema: 'AccountList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/accounts/{accountId}',
    operationId: 'getAccount',
    tag: 'Accounts',
    summary: 'Get an account',
    scope: 'accounts:read',
    pathParams: { accountId: api.Uuid },
    query: api.AccountGetParams,
    ok: { '200': { description: 'The account.', schema: 'Account' } },
    errors: ['400', '404'],
  },
  {
    method: 'get',
    path: '/v1/balances',
    operationId: 'listBalances',
    tag: 'Accounts',
    summary: 'List daily balance rows, date descending then accountId ascending',
    scope: 'accounts:read',
    query: api.BalanceListParams,
    ok: { '200': { description: 'A page of daily balance rows.', schema: 'BalanceList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/transactions',
    operationId: 'listTransactions',
    tag: 'Transactions',
    summary: 'Browse transactions (cursor bound to the query and sort; ties broken by id)',
    scope: 'transactions:read',
    query: api.TransactionListParams,
    ok: { '200': { description: 'A page of transactions.', schema: 'TransactionList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/transactions/sync',
    operationId: 'syncTransactions',
    tag: 'Transactions',
    summary: 'Incremental change stream: added, modified and removed events in server order',
    scope: 'transactions:read',
    query: api.TransactionSyncParams,
    ok: { '200': { description: 'A page of change events.', schema: 'SyncResponse' } },
    errors: ['400', '410'],
  },
  {
    method: 'get',
    path: '/v1/transactions/{transactionId}',
    operationId: 'getTransaction',
    tag: 'Transactions',
    summary: 'Get a transaction',
    scope: 'transactions:read',
    pathParams: { transactionId: api.Uuid },
    query: api.TransactionGetParams,
    ok: { '200': { description: 'The transaction.', schema: 'Transaction' } },
    errors: ['400', '404'],
  },
  {
    method: 'post',
    path: '/v1/transfers',
    operationId: 'createTransfer',
    tag: 'Transfers',
    summary: 'Create an internal transfer between connected accounts',
    scope: 'transfers:write',
    idempotent: true,
    body: 'TransferCreateParams',
    ok: { '201': { description: 'The transfer.', schema: 'Transfer' } },
    errors: ['400', '404', '409'],
  },
  {
    method: 'get',
    path: '/v1/transfers/{id}',
    operationId: 'getTransfer',
    tag: 'Transfers',
    summary: 'Get a transfer',
    scope: 'transfers:read',
    pathParams: { id: api.Uuid },
    ok: { '200': { description: 'The transfer.', schema: 'Transfer' } },
    errors: ['404'],
  },
  {
    method: 'post',
    path: '/v1/transfers/{id}/retry',
    operationId: 'retryTransfer',
    tag: 'Transfers',
    summary: 'Retry a transfer',
    scope: 'transfers:write',
    pathParams: { id: api.Uuid },
    idempotent: true,
    ok: { '200': { description: 'The transfer.', schema: 'Transfer' } },
    errors: ['400', '404', '409'],
  },
  {
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Register a webhook; the answer is the only one that shows the full secret',
    scope: 'webhooks:write',
    body: 'WebhookCreateParams',
    ok: { '201': { description: 'The registration, with its full secret.', schema: 'WebhookRegistration' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List webhook registrations, newest first (secrets masked)',
    scope: 'webhooks:read',
    query: api.WebhookListParams,
    ok: { '200': { description: 'A page of registrations.', schema: 'WebhookList' } },
    errors: ['400'],
  },
  {
    method: 'get',
    path: '/v1/webhooks/{webhookId}',
    operationId: 'getWebhook',
    tag: 'Webhooks',
    summary: 'Get a webhook registration (secret masked)',
    scope: 'webhooks:read',
    pathParams: { webhookId: id },
    ok: { '200': { description: 'The registration.', schema: 'WebhookRegistration' } },
    errors: ['404'],
  },
  {
    method: 'patch',
    path: '/v1/webhooks/{webhookId}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    summary: 'Update a registration: omitted fields stay unchanged, metadata null clears it',
    scope: 'webhooks:write',
    pathParams: { webhookId: id },
    body: 'WebhookUpdateParams',
    ok: { '200': { description: 'The registration (secret masked).', schema: 'WebhookRegistration' } },
    errors: ['400', '404'],
  },
  {
    method: 'delete',
    path: '/v1/webhooks/{webhookId}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a registration; its pending deliveries end',
    scope: 'webhooks:write',
    pathParams: { webhookId: id },
    ok: { '204': { description: 'Deleted.' } },
    errors: ['404'],
  },
  {
    method: 'post',
    path: '/v1/webhooks/{webhookId}/test',
    operationId: 'testWebhook',
    tag: 'Webhooks',
    summary: 'Send a test event to this registration only',
    scope: 'webhooks:write',
    pathParams: { webhookId: id },
    ok: { '202': { description: 'The test event is queued.', schema: 'WebhookTestResult' } },
    errors: ['404', '409'],
  },
]

/** format already says what these patterns spell out; the document reads better without them. */
function dropRedundantPatterns({ jsonSchema }: { jsonSchema: JsonObject }): void {
  if (['date-time', 'date', 'uuid'].includes(String(jsonSchema.format))) delete jsonSchema.pattern
}

function convertRegistry(
  schemas: Record<string, z.ZodType>,
  io: 'input' | 'output',
): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>()
  for (const [name, schema] of Object.entries(schemas)) registry.add(schema, { id: name })
  const converted = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (name) => `#/components/schemas/${name}`,
    override: dropRedundantPatterns,
  }).schemas
  return Object.fromEntries(
    Object.entries(converted).map(([name, schema]) => {
      const { $schema: _schema, $id: _id, ...rest } = schema as JsonObject
      return [name, rest]
    }),
  )
}

function convertOne(schema: z.ZodType): JsonObject {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: dropRedundantPatterns,
  }) as JsonObject
  return rest
}

function parameters(operation: Operation): JsonObject[] {
  const out: JsonObject[] = []
  for (const [name, schema] of Object.entries(operation.pathParams ?? {})) {
    out.push({ name, in: 'path', required: true, schema: convertOne(schema) })
  }
  for (const [name, schema] of Object.entries(operation.query?.shape ?? {})) {
    const field = schema as z.ZodType
    out.push({
      name,
      in: 'query',
      required: !field.safeParse(undefined).success,
      schema: convertOne(field),
    })
  }
  if (operation.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Identifies one logical request for at least 24 hours: an identical retry replays the first answer, ' +
        'a different payload under the same key is 409 idempotency_key_reused.',
      schema: convertOne(api.IdempotencyKey),
    })
  }
  return out
}

const ERROR_RESPONSES: Record<string, { name: string; description: string; codes: string[] }> = {
  '400': {
    name: 'BadRequest',
    description: 'The request is invalid.',
    codes: [ErrorCodes.validation, ErrorCodes.invalidCursor],
  },
  '401': {
    name: 'Unauthorized',
    description: 'The API key is missing, unknown or expired.',
    codes: [ErrorCodes.authenticationRequired, ErrorCodes.invalidApiKey, ErrorCodes.apiKeyExpired],
  },
  '403': {
    name: 'Forbidden',
    description: 'The API key lacks the scope.',
    codes: [ErrorCodes.insufficientScope],
  },
  '404': {
    name: 'NotFound',
    description: 'No such resource visible to this key.',
    codes: [ErrorCodes.notFound],
  },
  '409': {
    name: 'Conflict',
    description: 'The request conflicts with the current state.',
    codes: [
      ErrorCodes.connectionInSetup,
      ErrorCodes.syncInProgress,
      ErrorCodes.idempotencyKeyReused,
      ErrorCodes.deleteConflict,
      'connection_not_active',
      'connection_not_in_setup',
      'credentials_required',
      'transfer_not_retryable',
      'transfer_terminal',
      'webhook_inactive',
    ],
  },
  '410': {
    name: 'Gone',
    description: 'The sync cursor is older than 90 days.',
    codes: [ErrorCodes.cursorExpired],
  },
  '429': {
    name: 'TooManyRequests',
    description: 'Rate limited or within the sync cooldown; retry after Retry-After seconds.',
    codes: [ErrorCodes.rateLimited, ErrorCodes.syncCooldown],
  },
  '500': { name: 'InternalError', description: 'The service failed.', codes: [ErrorCodes.internal] },
  '503': {
    name: 'Unavailable',
    description: 'The service is temporarily unavailable.',
    codes: [ErrorCodes.unavailable],
  },
}

const ALWAYS_POSSIBLE = ['401', '403', '429', '500', '503']

function errorResponses(): Record<string, JsonObject> {
  return Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(({ name, description, codes }) => [
      name,
      {
        description: `${description} error.code: ${codes.join(', ')}.`,
        ...(name === 'TooManyRequests'
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        content: { 'application/json': { schema: REF('ErrorBody') } },
      },
    ]),
  )
}

function operationObject(operation: Operation): JsonObject {
  const responses: JsonObject = {}
  for (const [status, { description, schema }] of Object.entries(operation.ok)) {
    responses[status] = {
      description,
      headers: { 'Request-Id': RESPONSE_HEADER_REF },
      ...(schema ? { content: { 'application/json': { schema: REF(schema) } } } : {}),
    }
  }
  for (const status of [...(operation.errors ?? []), ...ALWAYS_POSSIBLE].sort()) {
    responses[status] = RESPONSE_REF(ERROR_RESPONSES[status]!.name)
  }
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: `Requires the ${operation.scope} scope.`,
    security: [{ bearerAuth: [operation.scope] }],
    ...(operation.pathParams || operation.query || operation.idempotent
      ? { parameters: parameters(operation) }
      : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: REF(operation.body) } } } }
      : {}),
    responses,
  }
}

const RESPONSE_HEADER_REF = { $ref: '#/components/headers/Request-Id' }

function webhookEvents(): JsonObject {
  const events: Array<[string, ResponseName, string]> = [
    ['connection.status_changed', 'ConnectionStatusChangedEvent', 'A connection changed status.'],
    [
      'transactions.sync_available',
      'SyncAvailableEvent',
      'Fresh transactions: call GET /v1/transactions/sync.',
    ],
    ['test', 'TestEvent', 'Sent by POST /v1/webhooks/{webhookId}/test.'],
  ]
  return Object.fromEntries(
    events.map(([type, schema, summary]) => [
      type,
      {
        post: {
          summary,
          description:
            'Delivered by POST to every active registration subscribed to the type. Retried with exponential ' +
            'back-off after a non-2xx answer or a network error.',
          parameters: [
            {
              name: 'Service-Signature',
              in: 'header',
              required: true,
              description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret>',
              schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: REF(schema) } } },
          responses: { '2XX': { description: 'Received; any other answer is retried.' } },
        },
      },
    ]),
  )
}

export function buildOpenApiDocument(): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {}
  for (const operation of OPERATIONS) {
    paths[operation.path] ??= {}
    paths[operation.path]![operation.method] = operationObject(operation)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bank Connectivity Service',
      version: 'v1',
      description:
        'The Bank Connectivity Service API as the bankrec sandbox serves it, generated from the api-client zod ' +
        'schemas (npm run openapi). Choices the seed leaves open are recorded in docs/sandbox.md.',
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'Local sandbox (npx bankrec sandbox)' }],
    security: [{ bearerAuth: [] }],
    tags: ['Institutions', 'Connections', 'Accounts', 'Transactions', 'Transfers', 'Webhooks'].map(
      (name) => ({
        name,
      }),
    ),
    paths,
    webhooks: webhookEvents(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API_KEY>. Keys belong to an organization and carry scopes.',
        },
      },
      headers: {
        'Request-Id': {
          description: 'Also in meta.requestId or error.requestId.',
          schema: { type: 'string' },
        },
      },
      responses: errorResponses(),
      schemas: withDiscriminators({
        ...convertRegistry(responseSchemas, 'output'),
        ...convertRegistry(requestSchemas, 'input'),
      }),
    },
  }
}

/** zod's discriminated union becomes a plain oneOf; OpenAPI readers also want the discriminator named. */
function withDiscriminators(schemas: Record<string, JsonObject>): Record<string, JsonObject> {
  return {
    ...schemas,
    Connection: {
      ...schemas.Connection,
      discriminator: {
        propertyName: 'kind',
        mapping: { setup: REF('SetupConnection').$ref, ready: REF('ReadyConnection').$ref },
      },
    },
  }
}
