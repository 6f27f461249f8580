import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { WEBHOOK_EVENTS_QUEUE, createInboxForwarder, type WebhookJobData } from '../../src/queue/index.js'
import { signPayload } from '../../src/signing/index.js'

export const SECRET = 'whsec_receiver_tests_5d2c'
export const REDIS_URL = 'redis://127.0.0.1:6379'

/** A queue prefix no other test file uses. */
export function uniquePrefix(file: string): string {
  return `test-${file}-${randomUUID().slice(0, 8)}`
}

export function testEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `evt_${randomUUID()}`,
    type: 'test',
    createdAt: new Date().toISOString(),
    apiVersion: 'v1',
    data: { webhookId: 'wh_test' },
    ...overrides,
  }
}

/** Headers and body of a delivery signed now with `secret`. */
export function signed(body: string, secret = SECRET, timestamp = Math.floor(Date.now() / 1000)) {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'service-signature': signPayload({ payload: body, secret, timestamp }),
    },
  }
}

/**
 * A BullMQ view of the receiver's queue, to check what landed; forward() first moves what the receiver accepted
 * from the inbox into the queue, as a worker would. close() removes every key under the prefix.
 */
export function inspectQueue(prefix: string) {
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
  const queue = new Queue<WebhookJobData>(WEBHOOK_EVENTS_QUEUE, { connection, prefix })
  const forwarder = createInboxForwarder({ connection, prefix })
  return {
    queue,
    forward: () => forwarder.forwardPending(),
    async close() {
      await forwarder.close()
      await queue.close()
      await deleteKeys(connection, `${prefix}:*`)
      connection.disconnect()
    },
  }
}

/** Unlinks every key matching the pattern (the seen keys are not BullMQ's, so obliterate leaves them). */
export async function deleteKeys(connection: Redis, pattern: string): Promise<void> {
  for await (const keys of connection.scanStream({ match: pattern, count: 1000 })) {
    if ((keys as string[]).length > 0) await connection.unlink(...(keys as string[]))
  }
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
