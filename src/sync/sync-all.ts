import type { BankClient } from '../api-client/index.js'
import type { Logger } from '../observability/index.js'

/** Requests a sync of every ready connection the API key can see (start-up and the safety-net schedule). */
export async function requestSyncOfAllReadyConnections(
  client: BankClient,
  requestSync: (connectionId: string, reason: string) => Promise<void>,
  reason: string,
  logger: Logger,
): Promise<number> {
  let count = 0
  for await (const connection of client.connections.listAll({ limit: 500 })) {
    if (connection.kind !== 'ready') continue
    await requestSync(connection.id, reason)
    count++
  }
  logger.info({ count, reason }, 'requested sync of every ready connection')
  return count
}
