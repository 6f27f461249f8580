import type { AlertSeverity } from './config.js'
import type {
  AlertEffect,
  HealthEffect,
  IncidentKind,
  InfoEffect,
  RecoveryEffect,
  ReminderEffect,
} from './health-record.js'
import { between, formatTime, type AlertNotice, type ConnectionRef } from './notice.js'

export const INCIDENT_SEVERITY: Record<IncidentKind, AlertSeverity> = {
  reauthRequired: 'critical',
  invalidConfig: 'critical',
  revoked: 'critical',
  errored: 'warning',
  staleSync: 'warning',
}

const KIND_LABEL: Record<IncidentKind, string> = {
  reauthRequired: 're-authentication',
  invalidConfig: 'invalid configuration',
  revoked: 'revoked access',
  errored: 'errored connection',
  staleSync: 'stale sync',
}

function bankName(connection: ConnectionRef): string {
  if (connection.institutionName) return connection.institutionName
  if (connection.portalUrl) {
    try {
      return new URL(connection.portalUrl).host
    } catch {
      return connection.portalUrl
    }
  }
  return 'unknown bank'
}

function portal(connection: ConnectionRef): string {
  return connection.portalUrl
    ? `the bank portal at ${connection.portalUrl}`
    : `the ${bankName(connection)} portal`
}

function delegatedUser(connection: ConnectionRef): string {
  const user = connection.delegatedUser
  const name = user?.name?.trim()
  const login = user?.username ?? user?.email
  if (name && login) return `The delegated user ${name} (sign-in: ${login})`
  if (name || login) return `The delegated user ${name ?? login}`
  return 'The delegated user of this connection'
}

function bankSays(effect: { errorCode: string | null; errorMessage: string | null }): string {
  if (!effect.errorMessage && !effect.errorCode) return ''
  const code = effect.errorCode ? ` (${effect.errorCode})` : ''
  return ` The bank says: ${effect.errorMessage ?? 'no message'}${code}.`
}

type Wording = { title: string; text: string; action: string | null }

function incidentWording(
  effect: AlertEffect | ReminderEffect,
  connection: ConnectionRef,
  bank: string,
): Wording {
  const who = `Connection ${connection.id} (${bank})`
  const since = formatTime(effect.startedAt)
  switch (effect.kind) {
    case 'reauthRequired':
      return {
        title: `${bank}: bank connection needs re-authentication`,
        text: `${who} needs re-authentication since ${since}; no bank data arrives until it is done.${bankSays(effect)}`,
        action:
          `${delegatedUser(connection)} must sign in to ${portal(connection)} and complete what it asks ` +
          `(new password, security prompts). Then submit the working password to bankrec ` +
          `(PUT /api/connections/${connection.id}/credentials) so syncing resumes.`,
      }
    case 'invalidConfig':
      return {
        title: `${bank}: bank connection configuration is invalid`,
        text: `${who} has an invalid configuration since ${since}; the service cannot continue until it is corrected.${bankSays(effect)}`,
        action:
          `Correct the connection's configuration: check the bank username, customer id and portal ` +
          `(${connection.portalUrl ?? 'none set'}) against what the bank expects, then submit them again ` +
          `(PUT /api/connections/${connection.id}/credentials).`,
      }
    case 'revoked':
      return {
        title: `${bank}: bank access revoked`,
        text: `${who} was revoked at ${since}: access was removed and no further syncs occur.${bankSays(effect)}`,
        action:
          `Re-create the connection (bankrec connect --entity ${connection.entityId ?? '<entity id>'} ` +
          `--portal-url ${connection.portalUrl ?? '<portal url>'}) and have the delegated user authorize it ` +
          `again at ${portal(connection)}.`,
      }
    case 'errored':
      return {
        title: `${bank}: bank connection errored for ${between(effect.startedAt, effect.occurredAt)}`,
        text:
          `${who} has been errored since ${since} (${between(effect.startedAt, effect.occurredAt)}); ` +
          `the service retries it itself, but it has not recovered.${bankSays(effect)}`,
        action:
          `Check ${portal(connection)} for an outage or a message for the delegated user; if it stays errored, ` +
          `contact the service's support quoting connection ${connection.id}.`,
      }
    case 'staleSync': {
      const ago = effect.lastSyncedAt ? between(effect.lastSyncedAt, effect.occurredAt) : null
      return {
        title: ago ? `${bank}: no successful sync for ${ago}` : `${bank}: no successful sync yet`,
        text: effect.lastSyncedAt
          ? `${who} is active but its last successful sync was ${formatTime(effect.lastSyncedAt)}, ${ago} ago.`
          : `${who} is active but has not synced successfully since it became active.`,
        action:
          `Request a sync (PUT /v1/connections/${connection.id}/sync; at most one per 45 minutes) and check the ` +
          `service's status; if syncs keep failing, contact its support quoting connection ${connection.id}.`,
      }
    }
  }
}

function recoveryWording(effect: RecoveryEffect, connection: ConnectionRef, bank: string): Wording {
  const kind = KIND_LABEL[effect.kind]
  const lasted = between(effect.startedAt, effect.recoveredAt)
  return {
    title:
      effect.kind === 'staleSync'
        ? `Recovered: ${bank} is syncing again`
        : `Recovered: ${bank} connection is active again`,
    text:
      `Connection ${connection.id} (${bank}) is healthy again as of ${formatTime(effect.recoveredAt)}. ` +
      `The ${kind} incident that started ${formatTime(effect.startedAt)} is closed after ${lasted}.`,
    action: null,
  }
}

function infoWording(effect: InfoEffect, connection: ConnectionRef, bank: string): Wording {
  if (effect.kind === 'paused') {
    return {
      title: `${bank}: bank connection paused`,
      text:
        `Connection ${connection.id} (${bank}) is paused since ${formatTime(effect.observedAt)}: syncing is ` +
        `intentionally suspended, typically for maintenance. For information; no new bank data until it resumes.`,
      action: null,
    }
  }
  return {
    title: `${bank}: bank connection resumed`,
    text: `Connection ${connection.id} (${bank}) is active again as of ${formatTime(effect.observedAt)}.`,
    action: null,
  }
}

// A caller may pass a whole stored row; only these fields ever reach a sink.
function pickConnection(connection: ConnectionRef): ConnectionRef {
  const user = connection.delegatedUser
  return {
    id: connection.id,
    entityId: connection.entityId ?? null,
    institutionId: connection.institutionId ?? null,
    institutionName: connection.institutionName,
    portalUrl: connection.portalUrl,
    delegatedUser: user
      ? { name: user.name ?? null, username: user.username ?? null, email: user.email ?? null }
      : null,
  }
}

/** What a connection health effect says to operations. */
export function connectionNotice(
  effect: Exclude<HealthEffect, { type: 'history' }>,
  connection: ConnectionRef,
): AlertNotice {
  const bank = bankName(connection)
  const fields = [
    { label: 'Connection', value: connection.id },
    { label: 'Bank', value: bank },
    { label: 'Portal', value: connection.portalUrl ?? 'not set' },
  ]
  const base = {
    id: effect.id,
    subject: { connection: pickConnection(connection) },
    occurredAt: effect.occurredAt,
  }
  if (effect.type === 'info') {
    return {
      ...base,
      type: 'info',
      severity: 'info',
      routeSeverity: 'info',
      kind: effect.kind,
      incidentId: null,
      ...infoWording(effect, connection, bank),
      fields: [...fields, { label: 'Status', value: effect.kind === 'paused' ? 'paused' : 'active' }],
    }
  }
  const severity = INCIDENT_SEVERITY[effect.kind]
  const incidentFields = [
    ...fields,
    { label: 'Since', value: formatTime(effect.startedAt) },
    { label: 'Incident', value: effect.incidentId },
  ]
  if (effect.type === 'recovery') {
    return {
      ...base,
      type: 'recovery',
      severity: 'info',
      routeSeverity: severity,
      kind: effect.kind,
      incidentId: effect.incidentId,
      ...recoveryWording(effect, connection, bank),
      fields: [...incidentFields, { label: 'Recovered', value: formatTime(effect.recoveredAt) }],
    }
  }
  const wording = incidentWording(effect, connection, bank)
  const statusFields = [
    { label: 'Status', value: effect.status },
    ...(effect.errorCode ? [{ label: 'Error code', value: effect.errorCode }] : []),
    ...(effect.lastSyncedAt ? [{ label: 'Last synced', value: formatTime(effect.lastSyncedAt) }] : []),
  ]
  if (effect.type === 'reminder') {
    return {
      ...base,
      type: 'reminder',
      severity,
      routeSeverity: severity,
      kind: effect.kind,
      incidentId: effect.incidentId,
      title: `Reminder ${effect.sequence}: ${wording.title}`,
      text: `Still open after ${between(effect.startedAt, effect.occurredAt)}. ${wording.text}`,
      action: wording.action,
      fields: [...incidentFields, ...statusFields],
    }
  }
  return {
    ...base,
    type: 'alert',
    severity,
    routeSeverity: severity,
    kind: effect.kind,
    incidentId: effect.incidentId,
    ...wording,
    fields: [...incidentFields, ...statusFields],
  }
}
