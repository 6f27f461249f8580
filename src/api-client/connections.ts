import { z } from 'zod'
import {
  HttpsUrl,
  IsoDateTime,
  Metadata,
  PageParams,
  Uuid,
  listResponse,
  type ListResponse,
} from './common.js'
import type { CallOptions, HttpClient } from './http.js'
import { listAll, listPages } from './pagination.js'
import { pathSegment, validateParams } from './validate-params.js'

export const ConnectionStatus = z.enum([
  'draft',
  'pendingActivation',
  'active',
  'reauthRequired',
  'errored',
  'invalidConfig',
  'paused',
  'revoked',
])
export type ConnectionStatus = z.infer<typeof ConnectionStatus>

const ConnectionCommon = {
  id: z.string(),
  entityId: z.string(),
  status: ConnectionStatus,
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  portalUrl: z.string().nullable(),
  institutionName: z.string().nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  metadata: Metadata.optional(),
}

export const SetupInstructions = z.looseObject({
  firstName: z.string(),
  lastName: z.string(),
  address: z.string(),
  email: z.string(),
  username: z.string(),
  phoneNumber: z.string(),
  emailProvisioningStatus: z.string(),
  phoneNumberProvisioningStatus: z.string(),
})
export type SetupInstructions = z.infer<typeof SetupInstructions>

export const SetupNextAction = z.enum(['createDelegatedUser', 'provideCredentials', 'activateConnection'])
export const SetupActor = z.enum(['endUser', 'integrator', 'service'])

export const SetupConnection = z.looseObject({
  ...ConnectionCommon,
  kind: z.literal('setup'),
  institutionId: z.string().nullable(),
  setup: z.looseObject({
    instructions: SetupInstructions,
    credentialsPresent: z.boolean(),
    nextAction: z.string(),
    actionRequiredBy: z.string(),
  }),
})
export type SetupConnection = z.infer<typeof SetupConnection>

export const SyncStatus = z.enum(['idle', 'syncing'])

export const ReadyConnection = z.looseObject({
  ...ConnectionCommon,
  kind: z.literal('ready'),
  institutionId: z.string(),
  syncStatus: SyncStatus,
  lastSyncedAt: IsoDateTime.nullable(),
})
export type ReadyConnection = z.infer<typeof ReadyConnection>

export const Connection = z.discriminatedUnion('kind', [SetupConnection, ReadyConnection])
export type Connection = z.infer<typeof Connection>

/**
 * Seed rule 1: entityId plus institutionId and/or portalUrl. The seed's request schema lists institutionId as
 * required, its guidance allows portalUrl alone; both paths are accepted.
 */
export const ConnectionCreateParams = z
  .object({
    entityId: Uuid,
    institutionId: z.string().min(1).optional(),
    portalUrl: HttpsUrl.nullish(),
  })
  .refine((body) => body.institutionId !== undefined || (body.portalUrl ?? null) !== null, {
    message: 'one of institutionId or portalUrl is required',
    path: ['institutionId'],
  })
export type ConnectionCreateParams = z.input<typeof ConnectionCreateParams>

export const ConnectionListParams = PageParams.extend({
  status: ConnectionStatus.optional(),
  institutionId: z.string().optional(),
  entityId: z.string().optional(),
})
export type ConnectionListParams = z.input<typeof ConnectionListParams>

export const ConnectionCredentialsParams = z.object({
  bankUsername: z.string().min(1).max(255).nullish(),
  bankCustomerId: z.string().min(1).max(255).nullish(),
  password: z.string().min(1).max(1024).nullish(),
})
export type ConnectionCredentialsParams = z.input<typeof ConnectionCredentialsParams>

/** Body of 202 Accepted from PUT /v1/connections/{id}/sync (the seed shows none; ours is documented). */
export const ConnectionSyncAccepted = z.looseObject({
  connectionId: z.string(),
  status: z.literal('queued'),
  meta: z.looseObject({ requestId: z.string() }).optional(),
})
export type ConnectionSyncAccepted = z.infer<typeof ConnectionSyncAccepted>

const ConnectionList = listResponse(Connection)

/** connections.create/list/get/submitCredentials/completeSetup/requestSync/delete, plus listAll and listPages. */
export function createConnectionsResource(http: HttpClient) {
  const path = (connectionId: string, tail = '') =>
    `/v1/connections/${pathSegment('connectionId', connectionId)}${tail}`

  /** GET /v1/connections: one page, newest first, filtered by status, institutionId or entityId. */
  async function list(
    params: ConnectionListParams = {},
    options?: CallOptions,
  ): Promise<ListResponse<Connection>> {
    const query = validateParams(ConnectionListParams, params)
    return http.request({ method: 'GET', path: '/v1/connections', query, schema: ConnectionList, options })
  }

  return {
    /**
     * POST /v1/connections with entityId and institutionId and/or an HTTPS portalUrl. Not retried automatically
     * (no Idempotency-Key in the seed); calling again is safe: an existing connection for the same entity and
     * portal is returned.
     */
    async create(params: ConnectionCreateParams, options?: CallOptions): Promise<Connection> {
      const body = validateParams(ConnectionCreateParams, params)
      return http.request({ method: 'POST', path: '/v1/connections', body, schema: Connection, options })
    },
    list,
    listAll: (params: ConnectionListParams = {}, options?: CallOptions) => listAll(list, params, options),
    listPages: (params: ConnectionListParams = {}, options?: CallOptions) => listPages(list, params, options),
    /** GET /v1/connections/{connectionId} */
    async get(connectionId: string, options?: CallOptions): Promise<Connection> {
      return http.request({ method: 'GET', path: path(connectionId), schema: Connection, options })
    },
    /** PUT /v1/connections/{connectionId}/credentials. The password never reaches a hook or an error. */
    async submitCredentials(
      connectionId: string,
      params: ConnectionCredentialsParams,
      options?: CallOptions,
    ): Promise<Connection> {
      const body = validateParams(ConnectionCredentialsParams, params)
      return http.request({
        method: 'PUT',
        path: path(connectionId, '/credentials'),
        body,
        schema: Connection,
        options,
      })
    },
    /** PUT /v1/connections/{connectionId}/setupCompletion: hands activation to the service. */
    async completeSetup(connectionId: string, options?: CallOptions): Promise<Connection> {
      return http.request({
        method: 'PUT',
        path: path(connectionId, '/setupCompletion'),
        schema: Connection,
        options,
      })
    },
    /**
     * PUT /v1/connections/{connectionId}/sync: 202 when queued. Within the 45-minute cooldown it throws
     * BankRateLimitError (code sync_cooldown) with retryAfterMs at once, without sleeping.
     */
    async requestSync(connectionId: string, options?: CallOptions): Promise<ConnectionSyncAccepted> {
      return http.request({
        method: 'PUT',
        path: path(connectionId, '/sync'),
        schema: ConnectionSyncAccepted,
        options,
      })
    },
    /** DELETE /v1/connections/{connectionId}: removes it with all its accounts and transactions. */
    async delete(connectionId: string, options?: CallOptions): Promise<void> {
      await http.request({
        method: 'DELETE',
        path: path(connectionId),
        schema: undefined,
        notFoundAfterRetryIsSuccess: true,
        options,
      })
    },
  }
}
export type ConnectionsResource = ReturnType<typeof createConnectionsResource>
