import type { Kysely } from 'kysely'
import {
  assertSchemaName,
  createChannelListener,
  type ChannelListener,
  type Database,
} from '../store/index.js'
import { createBackendQueue, type QueueBackendConfig } from './backend.js'
import { WEBHOOK_EVENTS_QUEUE } from './catalogue.js'
import { countInboxRows, forwardInboxRows, INBOX_CHANNEL } from './postgres-inbox-rows.js'
import { wakeWorkers } from './postgres-webhook-job-rows.js'
import { createWake } from './postgres-wake.js'

export type PostgresInboxForwarderOptions = {
  /** bankrec's store (its schema holds `webhook_inbox`). */
  db: Kysely<Database>
  backend: Extract<QueueBackendConfig, { kind: 'postgres' }>
  /** Rows moved per statement. @defaultValue 256 */
  batchSize?: number
  /**
   * How often the inbox is read without a notification: rows a crashed forwarder or a lost notification left, or
   * rows another forwarder held when this one looked, are forwarded within it. @defaultValue 1000
   */
  sweepEveryMs?: number
  /** Errors of a forwarding round or of the listening connection; the forwarder carries on. @defaultValue ignore */
  onError?: (error: Error) => void
}

export type PostgresInboxForwarder = {
  /** Moves every row now in the inbox into the queue; resolves with how many it moved. */
  forwardPending(): Promise<number>
  /** How many rows wait in the inbox. */
  backlog(): Promise<number>
  /** Forwards in the background, on each inbox notification and every `sweepEveryMs`, until close(). */
  start(): void
  close(): Promise<void>
}

/**
 * Moves the PostgreSQL queue's inbox (postgres-inbox-rows.ts) into BullMQ's job table, oldest first: each round is
 * one statement that deletes the rows it takes and adds their jobs, so a row is forwarded exactly once, and a
 * crash leaves it in the inbox for the next round. Any number of forwarders may run (one per worker process);
 * FOR UPDATE SKIP LOCKED gives each its own rows. Woken by the inbox write's NOTIFY (a LISTEN connection of its
 * own) and by a sweep; wakes the workers after each round that moved rows, as the direct write does.
 */
export function createPostgresInboxForwarder(options: PostgresInboxForwarderOptions): PostgresInboxForwarder {
  const schema = assertSchemaName(options.backend.schema)
  const batchSize = options.batchSize ?? 256
  const sweepEveryMs = options.sweepEveryMs ?? 1_000
  const onError = options.onError ?? (() => undefined)
  // The backend migrates its schema when it connects; the first round waits for that.
  const queue = createBackendQueue(WEBHOOK_EVENTS_QUEUE, options.backend)
  const wakeWorkersOnce = createWake(() => wakeWorkers().execute(options.db))
  let ready: Promise<unknown> | undefined
  let stopped = false
  let listener: ChannelListener | undefined
  let sweep: NodeJS.Timeout | undefined
  // One round of forwarding at a time; a wake-up during it asks for one more.
  let running: Promise<void> | undefined
  let runAgain = false

  const forwardBatch = async (): Promise<number> => {
    await (ready ??= queue.waitUntilReady().catch((error: unknown) => {
      ready = undefined
      throw error
    }))
    const { rows } = await forwardInboxRows({
      queueSchema: schema,
      limit: batchSize,
      timestampMs: Date.now(),
    }).execute(options.db)
    const taken = rows[0]?.taken ?? 0
    if (taken > 0) wakeWorkersOnce()
    return taken
  }

  const forwardPending = async (): Promise<number> => {
    let moved = 0
    for (let n = await forwardBatch(); n > 0; n = n < batchSize ? 0 : await forwardBatch()) moved += n
    return moved
  }

  const run = (): void => {
    if (stopped) return
    if (running) {
      runAgain = true
      return
    }
    running = forwardPending()
      .then(
        () => undefined,
        (error: unknown) => onError(error as Error),
      )
      .finally(() => {
        running = undefined
        if (runAgain) {
          runAgain = false
          run()
        }
      })
  }

  return {
    forwardPending,
    async backlog() {
      const { rows } = await countInboxRows().execute(options.db)
      return rows[0]?.n ?? 0
    },
    start() {
      if (sweep || stopped) return
      sweep = setInterval(run, sweepEveryMs)
      listener = createChannelListener({
        connectionString: options.backend.connectionString,
        channel: INBOX_CHANNEL,
        onNotification: (payload) => {
          if (payload === schema) run()
        },
        // Rows written while it was not listening.
        onListening: run,
        onError: (error) => onError(error),
        reconnectDelayMs: 1_000,
      })
      void listener.start()
    },
    async close() {
      stopped = true
      clearInterval(sweep)
      await listener?.close()
      while (running) await running
      await wakeWorkersOnce.settled()
      await queue.close()
    },
  }
}
