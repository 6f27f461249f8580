import {
  BankNotFoundError,
  BankValidationError,
  ValidationError,
  type BankClient,
  type Connection,
} from '../api-client/index.js'
import { knownConnection, type ConnectionLookup } from '../webhook-events/index.js'

/** GET the connection from the bank; null when it is no connection there (404, or not even a valid id). */
export function bankConnectionLookup(
  client: BankClient,
): (connectionId: string) => Promise<Connection | null> {
  return async (connectionId) => {
    try {
      return await client.connections.get(connectionId)
    } catch (error) {
      if (
        error instanceof BankNotFoundError ||
        error instanceof BankValidationError ||
        error instanceof ValidationError
      )
        return null
      throw error
    }
  }
}

/**
 * Queues a sync only for a known connection (the mirror, else the bank once): finding 12, a sync job for an id
 * that is no connection only fails. Resolves false, queuing nothing, for such an id.
 */
export function createKnownSyncRequester(
  lookup: ConnectionLookup,
  requestSync: (connectionId: string, reason: string) => Promise<void>,
): (connectionId: string, reason: string) => Promise<boolean> {
  return async (connectionId, reason) => {
    if (!(await knownConnection(lookup, connectionId))) return false
    await requestSync(connectionId, reason)
    return true
  }
}
