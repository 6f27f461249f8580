import { ApiError } from '../api-error.js'
import type { SandboxContext } from '../context.js'
import type { ConnectionRecord } from '../state.js'
import { REJECTED_PASSWORD, scheduleActivation } from './activate-connection.js'
import { refreshSetupStep, setConnectionStatus } from './connection-status.js'
import { buildDelegatedUser } from './delegated-user.js'
import { normalizePortalUrl } from './portal-url.js'
import { randomStream } from './random-stream.js'
import { institutionForPortal, portalsOf } from './resolve-bank.js'
import { setupStep } from './setup-step.js'
import { scheduleStep } from './timeline.js'

/** Seconds until the service has provisioned the delegated user's email and phone number. */
export const EMAIL_PROVISIONING_SECONDS = 30
export const PHONE_PROVISIONING_SECONDS = 90

export type CreateConnectionInput = {
  entityId: string
  institutionId?: string | undefined
  portalUrl?: string | null | undefined
}

/**
 * POST /v1/connections. The bank is the catalog institution (its canonical portal unless portalUrl picks
 * another) or, with portalUrl alone, whichever institution lists that portal, else an unlisted bank. An existing
 * connection of the entity on the same normalized portal is returned as is (created false: 200).
 */
export function createConnection(
  ctx: SandboxContext,
  orgId: string,
  input: CreateConnectionInput,
): { record: ConnectionRecord; created: boolean } {
  const catalog = ctx.state.institutions
  let institution = null
  let portalUrl: string | null = null
  if (input.portalUrl) {
    portalUrl = normalizePortalUrl(input.portalUrl)
    if (!portalUrl) {
      throw new ApiError(400, 'validation_error', 'portalUrl must be an https:// URL.', [
        { path: 'body.portalUrl', message: 'must be an https:// URL' },
      ])
    }
  }
  if (input.institutionId !== undefined) {
    institution = catalog.find((i) => i.institutionId === input.institutionId) ?? null
    if (!institution) {
      throw new ApiError(
        404,
        'not_found',
        `No institution with id ${JSON.stringify(input.institutionId)}; search GET /v1/institutions or pass portalUrl alone.`,
      )
    }
    portalUrl ??= portalsOf(institution)[0]!
  } else {
    institution = institutionForPortal(catalog, portalUrl!)
  }

  for (const existing of ctx.state.connections.values()) {
    if (
      existing.orgId === orgId &&
      existing.entityId === input.entityId &&
      existing.portalUrl === portalUrl
    ) {
      return { record: existing, created: false }
    }
  }

  const now = ctx.clock.now()
  const id = randomStream(ctx, 'connection-ids').uuid()
  const instructions = buildDelegatedUser(ctx.random.fork(`delegate:${id}`))
  const record: ConnectionRecord = {
    id,
    orgId,
    entityId: input.entityId,
    kind: 'setup',
    status: 'draft',
    institutionId: institution?.institutionId ?? null,
    institutionName: institution?.name ?? null,
    portalUrl,
    errorCode: null,
    errorMessage: null,
    metadata: {},
    createdAt: now,
    updatedAt: now,
    setup: {
      instructions,
      credentialsPresent: false,
      ...setupStep({ status: 'draft', credentialsPresent: false, instructions }),
    },
    syncStatus: 'idle',
    lastSyncedAt: null,
    lastSyncStartedAt: null,
    statusChangedAt: now,
  }
  ctx.state.connections.set(id, record)
  ctx.emitEvent(orgId, 'connection.status_changed', {
    connectionId: id,
    entityId: record.entityId,
    previousStatus: null,
    status: 'draft',
    errorCode: null,
    errorMessage: null,
  })
  scheduleProvisioning(ctx, record, now)
  return { record, created: true }
}

/** The service provisions the delegated user's email and phone number some time after the connection's creation. */
export function scheduleProvisioning(ctx: SandboxContext, record: ConnectionRecord, from: Date): void {
  const provision = (field: 'emailProvisioningStatus' | 'phoneNumberProvisioningStatus') => (at: Date) => {
    const current = ctx.state.connections.get(record.id)
    // Already provisioned when a restored sandbox schedules it again (resumeScheduledWork).
    if (!current || current.setup.instructions[field] === 'provisioned') return
    current.setup.instructions[field] = 'provisioned'
    current.updatedAt = at
    refreshSetupStep(current)
  }
  scheduleStep(
    ctx,
    from,
    EMAIL_PROVISIONING_SECONDS,
    'delegated user email',
    provision('emailProvisioningStatus'),
  )
  scheduleStep(
    ctx,
    from,
    PHONE_PROVISIONING_SECONDS,
    'delegated user phone',
    provision('phoneNumberProvisioningStatus'),
  )
}

export type CredentialsInput = {
  bankUsername?: string | null | undefined
  bankCustomerId?: string | null | undefined
  password?: string | null | undefined
}

/**
 * PUT /v1/connections/{id}/credentials. Only the fact that a password was given is kept, never the password
 * (and whether it is the sandbox's rejected one). New credentials bring a connection out of reauthRequired:
 * a setup-stage one back to draft, a ready one back to active, unless the password is the rejected one.
 */
export function submitCredentials(
  ctx: SandboxContext,
  record: ConnectionRecord,
  input: CredentialsInput,
): void {
  if (!input.bankUsername && !input.bankCustomerId && !input.password) {
    throw new ApiError(
      400,
      'validation_error',
      'Send at least one of bankUsername, bankCustomerId or password.',
      [{ path: 'body', message: 'at least one of bankUsername, bankCustomerId or password is required' }],
    )
  }
  record.updatedAt = ctx.clock.now()
  if (input.password) {
    record.setup.credentialsPresent = true
    record.passwordRejected = input.password === REJECTED_PASSWORD
  }
  refreshSetupStep(record)
  if (record.status !== 'reauthRequired' || !input.password || record.passwordRejected) return
  setConnectionStatus(ctx, record, record.kind === 'ready' ? 'active' : 'draft')
}

/**
 * PUT /v1/connections/{id}/setupCompletion: hands activation to the service (status pendingActivation, then
 * kind=ready and active after settings.activationSeconds). Repeating it while pending changes nothing.
 */
export function completeSetup(ctx: SandboxContext, record: ConnectionRecord): void {
  if (record.kind === 'ready') {
    throw new ApiError(409, 'connection_not_in_setup', 'The connection is already ready; setup is complete.')
  }
  if (record.status === 'pendingActivation') return
  if (!record.setup.credentialsPresent) {
    throw new ApiError(
      409,
      'credentials_required',
      'Submit the delegated user’s credentials (PUT .../credentials) before completing setup.',
    )
  }
  setConnectionStatus(ctx, record, 'pendingActivation')
  scheduleActivation(ctx, record, ctx.clock.now())
}
