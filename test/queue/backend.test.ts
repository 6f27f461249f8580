import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createBackendQueue, createBackendWorker, type QueueBackendConfig } from '../../src/queue/backend.js'
import { TEST_DATABASE_URL } from '../support/test-database.js'

const suffix = randomBytes(4).toString('hex')
const backends: QueueBackendConfig[] = [
  { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: `test-backend-${suffix}` },
  { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: `test_queue_${suffix}` },
]

afterAll(async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await client.connect()
  await client.query(`drop schema if exists test_queue_${suffix} cascade`)
  await client.end()
})

describe.each(backends)('queue backend $kind', (config) => {
  it('delivers each added job to a worker once, and a job id only once', async () => {
    const queue = createBackendQueue<{ n: number }>('backend-check', config)
    const seen: number[] = []
    let resolveAll: () => void = () => undefined
    const allSeen = new Promise<void>((resolve) => (resolveAll = resolve))
    const worker = createBackendWorker<{ n: number }>('backend-check', config, async (job) => {
      seen.push(job.data.n)
      if (seen.length === 3) resolveAll()
    })
    try {
      await queue.add('job', { n: 1 }, { jobId: 'same-id' })
      await queue.add('job', { n: 99 }, { jobId: 'same-id' })
      await queue.add('job', { n: 2 })
      await queue.add('job', { n: 3 })
      await allSeen
      expect(seen.sort()).toEqual([1, 2, 3])
    } finally {
      await worker.close()
      await queue.close()
    }
  })
})
