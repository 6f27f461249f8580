import type { Kysely } from 'kysely'
import {
  connectionNotice,
  emptyHealth,
  observe,
  tick,
  type ConnectionRef,
  type HealthObservation,
  type HealthThresholds,
  type HealthTransition,
} from '../alerts/index.js'
import { ConnectionStatus, type BankClient, type Connection } from '../api-client/index.js'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import {
  getMirroredConnection,
  listHealthConnectionIds,
  listMirroredConnections,
  observeConnection as mirrorConnection,
  rememberDelegatedUser,
  setMirroredStatus,
  updateConnectionHealth,
  type Database,
  type DelegatedUser,
  type StoredHealth,
} from '../store/index.js'
import type { AlertPipeline } from '../alert-delivery/alert-publisher.js'

export type ConnectionHealthMonitor = {
  /** One status seen: a webhook event, or a connection read while polling or syncing. */
  observe(connectionId: string, observation: HealthObservation): Promise<void>
  /** A connection.status_changed event, as the webhook handler hands it over; rejects when it was not recorded. */
  observeStatusChange(change: StatusChange): Promise<void>
  /**
   * A connection as the bank returned it (sync, poll, the API, a webhook's look-up): its mirrored row and its
   * health in one transaction.
   */
  observeConnection(connection: Connection, source: 'poll' | 'sync'): Promise<void>
  /** The time-driven rules (errored too long, stale sync, reminders) for every known connection. */
  tickAll(): Promise<{ connections: number }>
  /** Reads every connection from the bank into the mirror and the health records; false if the bank failed. */
  pollBank(): Promise<boolean>
}

export type StatusChange = {
  connectionId: string
  status: string
  /** The previous status the event states, if it does. */
  enteredFrom?: string | null
  errorCode: string | null
  errorMessage: string | null
  eventId: string
  occurredAt: string
}

export type ConnectionHealthMonitorDeps = {
  db: Kysely<Database>
  clock: Clock
  thresholds: HealthThresholds
  alerts: AlertPipeline
  logger: Logger
  /** Looks a connection up at the bank when the mirror does not know it yet (the alert must name it). */
  bank?: BankClient
}

export function observationOf(connection: Connection, source: 'poll' | 'sync'): HealthObservation {
  return {
    status: connection.status,
    errorCode: connection.errorCode,
    errorMessage: connection.errorMessage,
    observedAt: connection.updatedAt,
    lastSyncedAt: connection.kind === 'ready' ? connection.lastSyncedAt : null,
    source,
  }
}

function delegatedUserOf(connection: Connection): DelegatedUser | null {
  if (connection.kind !== 'setup') return null
  const { firstName, lastName, username, email } = connection.setup.instructions
  const name = `${firstName} ${lastName}`.trim()
  return { name: name || null, username: username || null, email: email || null }
}

function refOf(connection: Connection, delegatedUser: DelegatedUser | null): ConnectionRef {
  return {
    id: connection.id,
    entityId: connection.entityId,
    institutionId: connection.institutionId,
    institutionName: connection.institutionName,
    portalUrl: connection.portalUrl,
    delegatedUser,
  }
}

/**
 * Runs the pure health rules of src/alerts/ against the stored record of each connection. Each change runs in
 * one transaction under the record's row lock, and the notices it yields are stored in that transaction, so a
 * record never advances without its notices and concurrent observations apply one after the other. Deliveries
 * are queued after the commit.
 *
 * This is the one writer of a connection's status (issue 14): the same transaction writes the mirrored row, and
 * its status is the one the health record settled on, so GET /api/connections, the dashboard and the alerts
 * agree at every moment whichever source (webhook, poll, sync, API call) saw the change, in whatever order.
 */
export function createConnectionHealthMonitor(deps: ConnectionHealthMonitorDeps): ConnectionHealthMonitor {
  const { db, logger } = deps

  async function describe(
    trx: Kysely<Database>,
    connectionId: string,
    delegatedUser: DelegatedUser | null,
    seen: Connection | undefined,
  ): Promise<ConnectionRef> {
    const row = await getMirroredConnection(trx, connectionId)
    if (row) {
      return {
        id: row.id,
        entityId: row.entity_id,
        institutionId: row.institution_id,
        institutionName: row.institution_name,
        portalUrl: row.portal_url,
        delegatedUser,
      }
    }
    if (seen) return refOf(seen, delegatedUser)
    const fetched = await deps.bank?.connections.get(connectionId).catch((error: unknown) => {
      logger.warn({ err: error, connectionId }, 'could not look the connection up for its alert')
      return undefined
    })
    if (fetched) return refOf(fetched, delegatedUser)
    return { id: connectionId, institutionName: null, portalUrl: null, delegatedUser }
  }

  async function apply(
    connectionId: string,
    step: (stored: StoredHealth, now: Date) => HealthTransition,
    read?: { connection: Connection; source: 'poll' | 'sync' },
  ): Promise<void> {
    const deliveries = await updateConnectionHealth(
      db,
      connectionId,
      emptyHealth(connectionId),
      async (stored, trx) => {
        const now = deps.clock.now()
        const { record, effects } = step(stored, now)
        if (read) await mirrorConnection(trx, read.connection, read.source, now)
        const { status, errorCode, errorMessage } = record
        if (status !== null) await setMirroredStatus(trx, connectionId, { status, errorCode, errorMessage })
        const noticeEffects = effects.filter((effect) => effect.type !== 'history')
        if (noticeEffects.length === 0) return { record, result: [] }
        const ref = await describe(trx, connectionId, stored.delegatedUser, read?.connection)
        const notices = noticeEffects.map((effect) => connectionNotice(effect, ref))
        return { record, result: await deps.alerts.store(trx, notices) }
      },
    )
    await deps.alerts.enqueue(deliveries)
  }

  const monitor: ConnectionHealthMonitor = {
    observe: (connectionId, observation) =>
      apply(connectionId, ({ record }, now) => observe(record, observation, now, deps.thresholds)),

    async observeStatusChange(change) {
      const status = ConnectionStatus.safeParse(change.status)
      if (!status.success) return
      const enteredFrom = ConnectionStatus.safeParse(change.enteredFrom)
      // Runs before the event is claimed: a failure fails the job, whose retry observes again (deduped by event id).
      await monitor.observe(change.connectionId, {
        status: status.data,
        errorCode: change.errorCode,
        errorMessage: change.errorMessage,
        observedAt: change.occurredAt,
        source: 'webhook',
        eventId: change.eventId,
        enteredFrom: enteredFrom.success ? enteredFrom.data : null,
      })
    },

    async observeConnection(connection, source) {
      const user = delegatedUserOf(connection)
      if (user) await rememberDelegatedUser(db, connection.id, emptyHealth(connection.id), user)
      await apply(
        connection.id,
        ({ record }, now) => observe(record, observationOf(connection, source), now, deps.thresholds),
        { connection, source },
      )
    },

    async tickAll() {
      const known = new Set(await listHealthConnectionIds(db))
      const mirrored = await listMirroredConnections(db)
      // A deleted connection has nothing left to remind anyone of.
      for (const row of mirrored) if (row.kind === 'deleted') known.delete(row.id)
      // A connection mirrored before health was tracked starts from what the mirror saw last.
      for (const row of mirrored) {
        if (known.has(row.id) || row.kind === 'deleted') continue
        await monitor.observe(row.id, {
          status: row.status as HealthObservation['status'],
          errorCode: row.error_code,
          errorMessage: row.error_message,
          observedAt: row.updated_at.toISOString(),
          lastSyncedAt: row.last_synced_at?.toISOString() ?? null,
          source: 'poll',
        })
        known.add(row.id)
      }
      for (const connectionId of known) {
        await apply(connectionId, ({ record }, now) => tick(record, now, deps.thresholds)).catch((error) =>
          logger.error({ err: error, connectionId }, 'connection health tick failed'),
        )
      }
      return { connections: known.size }
    },

    async pollBank() {
      if (!deps.bank) return false
      try {
        for await (const connection of deps.bank.connections.listAll({ limit: 500 })) {
          await monitor.observeConnection(connection, 'poll')
        }
        return true
      } catch (error) {
        logger.warn({ err: error }, 'polling the bank for connection statuses failed; the next tick retries')
        return false
      }
    },
  }
  return monitor
}
