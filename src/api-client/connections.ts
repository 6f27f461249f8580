import { z } from 'zod'
import { HttpsUrl, IsoDateTime, Metadata, PageParams, Uuid } from './common.js'

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
