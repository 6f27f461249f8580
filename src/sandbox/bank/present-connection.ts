import type { Connection } from '../../api-client/index.js'
import type { ConnectionRecord } from '../state.js'

/** A connection record in its API shape: the setup or the ready variant, by kind. */
export function presentConnection(record: ConnectionRecord): Connection {
  const common = {
    id: record.id,
    entityId: record.entityId,
    status: record.status,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    portalUrl: record.portalUrl,
    institutionName: record.institutionName,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    metadata: { ...record.metadata },
  }
  if (record.kind === 'setup') {
    return {
      ...common,
      kind: 'setup',
      institutionId: record.institutionId,
      setup: {
        instructions: { ...record.setup.instructions },
        credentialsPresent: record.setup.credentialsPresent,
        nextAction: record.setup.nextAction,
        actionRequiredBy: record.setup.actionRequiredBy,
      },
    }
  }
  return {
    ...common,
    kind: 'ready',
    institutionId: record.institutionId ?? '',
    syncStatus: record.syncStatus,
    lastSyncedAt: record.lastSyncedAt?.toISOString() ?? null,
  }
}
