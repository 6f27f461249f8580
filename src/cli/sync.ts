import { Command } from 'commander'
import { requestConnectionSync } from '../sync/index.js'
import { CONNECTION_SYNC_QUEUE, createBackendQueue, type ConnectionSyncJobData } from '../queue/index.js'
import { openStore, queueBackendFor } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

/** `bankrec sync <connectionId>`: queues a sync of one connection for the workers. */
export function syncCommand(io: CommandIo): Command {
  return new Command('sync')
    .description('Queue a sync of one connection (a running worker applies it)')
    .argument('<connectionId>', 'the connection to sync')
    .action(async (connectionId: string) => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      const queue = createBackendQueue<ConnectionSyncJobData>(
        CONNECTION_SYNC_QUEUE,
        queueBackendFor(config, store.connectionString),
      )
      try {
        // Within one interval, even when the connection's job waits out a longer retry back-off.
        await requestConnectionSync(
          { db: store.db, queue, dueWithinMs: config.SYNC_INTERVAL_SECONDS * 1000 },
          connectionId,
          'cli',
        )
        io.stdout.write(`sync of ${connectionId} queued\n`)
      } finally {
        await queue.close()
        await store.close()
      }
    })
}
