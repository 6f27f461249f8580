import { randomBytes } from 'node:crypto'
import { Agent, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createBackendQueue,
  createPostgresWebhookEventQueue,
  createRedisWebhookEventQueue,
  jobIdFor,
  WEBHOOK_EVENTS_QUEUE,
  type WebhookEventQueue,
} from '../../src/queue/index.js'
import {
  createReceiverServer,
  createWebhookMiddleware,
  type DeliveryAnswer,
  type ReceiverServer,
  type WebhookMiddleware,
} from '../../src/receiver/index.js'
import { REDIS_URL, inspectQueue, uniquePrefix } from '../receiver/deliveries.js'
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/test-database.js'
import { DOCUMENTED_STATUS, webhookFuzzCases, type FuzzCase } from '../support/webhook-fuzz-cases.js'

/** FUZZ_WEBHOOK_COUNT overrides the number of generated deliveries; FUZZ_SEED replays a run. */
const TOTAL = Number(process.env.FUZZ_WEBHOOK_COUNT ?? 100_000)
const OVER_HTTP = Math.min(2_000, TOTAL)
const SEED = Number(process.env.FUZZ_SEED ?? 20260302)
const SECRETS = ['whsec_rotated_in_7f3a', 'whsec_receiver_fuzz_5d2c']
const NOW = new Date('2026-03-02T09:00:00Z')
const TOLERANCE = 300
const LIMIT = 8 * 1024

const prefix = uniquePrefix('webhook-fuzz')
const view = inspectQueue(prefix)
const unexpected: unknown[] = []
let database: TestDatabase
let redisQueue: WebhookEventQueue
let postgresQueue: WebhookEventQueue
let standalone: ReceiverServer
let standaloneUrl: string
let middleware: WebhookMiddleware
let expressServer: Server
let expressUrl: string
const queueSchema = `test_webhook_fuzz_queue_${randomBytes(4).toString('hex')}`

const receiverOptions = {
  secrets: SECRETS,
  now: () => NOW,
  toleranceSeconds: TOLERANCE,
  bodyLimitBytes: LIMIT,
  onError: (error: unknown) => unexpected.push(error),
}

beforeAll(async () => {
  database = await createTestDatabase('webhook_fuzz')
  redisQueue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix, forward: false })
  postgresQueue = createPostgresWebhookEventQueue({
    db: database.db,
    backend: { kind: 'postgres', connectionString: TEST_DATABASE_URL, schema: queueSchema },
  })
  standalone = createReceiverServer({ ...receiverOptions, queue: redisQueue })
  standaloneUrl = await standalone.listen({ port: 0 })
  middleware = createWebhookMiddleware({ ...receiverOptions, queue: postgresQueue })
  const app = express()
  app.post('/webhooks', middleware)
  expressServer = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server))
  })
  expressUrl = `http://127.0.0.1:${(expressServer.address() as AddressInfo).port}`
})

afterAll(async () => {
  agent.destroy()
  await new Promise((resolve) => expressServer?.close(resolve))
  await middleware?.flush()
  await standalone?.close()
  await redisQueue?.close()
  await postgresQueue?.close()
  await view.close()
  await database?.db.schema.dropSchema(queueSchema).ifExists().cascade().execute()
  await database?.drop()
})

const agent = new Agent({ keepAlive: true, maxSockets: 50 })

type Answer = { status: number; body: string; contentType: string | undefined }

/** node:http rather than fetch, which refuses latin-1 header values and repeated header lines. */
function post(base: string, c: FuzzCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[] | number> = {}
    if (c.contentType !== undefined) headers['content-type'] = c.contentType
    if (c.signature !== undefined) headers['service-signature'] = c.signature
    if (c.contentEncoding !== undefined) headers['content-encoding'] = c.contentEncoding
    if (!c.chunked) headers['content-length'] = c.body.length
    const req = request(`${base}/webhooks`, { method: 'POST', agent, headers })
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: res.headers['content-type'],
        }),
      )
    })
    // A 413 may close the connection before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    )
    if (c.chunked) {
      // Several writes without a Content-Length: Transfer-Encoding chunked.
      const cut = Math.floor(c.body.length / 2)
      req.write(c.body.subarray(0, cut))
      req.end(c.body.subarray(cut))
    } else req.end(c.body)
  })
}

function codeOf(answer: Answer): string {
  const parsed = JSON.parse(answer.body) as { status?: string; error?: { code?: string } }
  return parsed.error?.code ?? parsed.status ?? '(none)'
}

const fromCore = (answer: DeliveryAnswer): Answer => ({
  status: answer.status,
  body: answer.body,
  contentType: 'application/json; charset=utf-8',
})

describe(`fuzzing the receiver with ${TOTAL} generated deliveries`, () => {
  it(
    'answers each with its documented code, queues only deliveries signed with a configured secret, each once',
    { timeout: 180_000 },
    async () => {
      const wrong: string[] = []
      const kinds = new Map<string, number>()
      const genuineBodies = new Map<string, Buffer>()
      /** Per queue: genuine event id → how many deliveries of it were answered as newly queued (not duplicate). */
      const accepted = { redis: new Map<string, number>(), postgres: new Map<string, number>() }
      const check = (c: FuzzCase, answer: Answer, where: 'standalone' | 'express' | 'core') => {
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1)
        let code: string
        try {
          code = codeOf(answer)
        } catch {
          code = '(no JSON body)'
        }
        if (!c.expect.includes(code) || DOCUMENTED_STATUS[code] !== answer.status) {
          wrong.push(`${where} ${c.kind}: ${answer.status} ${code}, expected ${c.expect.join(' or ')}`)
        }
        if (!answer.contentType?.startsWith('application/json')) wrong.push(`${where} ${c.kind}: not JSON`)
        if (answer.status < 300 && !c.genuineId) wrong.push(`${where} ${c.kind}: accepted a forgery`)
        if (c.genuineId) {
          genuineBodies.set(c.genuineId, c.body)
          const counts = where === 'express' ? accepted.postgres : accepted.redis
          counts.set(c.genuineId, (counts.get(c.genuineId) ?? 0) + (code === 'duplicate' ? 0 : 1))
        }
      }
      const cases = webhookFuzzCases(
        {
          seed: SEED,
          secrets: SECRETS,
          now: Math.floor(NOW.getTime() / 1000),
          toleranceSeconds: TOLERANCE,
          bodyLimitBytes: LIMIT,
        },
        TOTAL,
      )
      const take = (n: number): FuzzCase[] => {
        const chunk: FuzzCase[] = []
        for (let i = 0; i < n; i++) {
          const next = cases.next()
          if (next.done) break
          chunk.push(next.value)
        }
        return chunk
      }

      // A sample over real HTTP, alternating between the standalone receiver (Redis queue) and the express
      // middleware (PostgreSQL queue); each dedupes on its own queue.
      const overHttp = take(OVER_HTTP)
      for (let i = 0; i < overHttp.length; i += 50) {
        const chunk = overHttp.slice(i, i + 50)
        const answers = await Promise.all(
          chunk.map((c, j) => post((i + j) % 2 === 1 ? expressUrl : standaloneUrl, c)),
        )
        chunk.forEach((c, j) => check(c, answers[j]!, (i + j) % 2 === 1 ? 'express' : 'standalone'))
      }

      // The rest straight into the standalone receiver's core, which is far faster. Node joins repeated header
      // lines with ", " before the core sees them.
      for (let chunk = take(500); chunk.length > 0; chunk = take(500)) {
        const answers = await Promise.all(
          chunk.map((c) =>
            standalone.receiver.receive({
              contentType: c.contentType,
              signature: Array.isArray(c.signature) ? c.signature.join(', ') : c.signature,
              body: c.body,
            }),
          ),
        )
        chunk.forEach((c, j) => check(c, fromCore(answers[j]!), 'core'))
      }
      expect(wrong.slice(0, 20)).toEqual([])
      expect(unexpected).toEqual([])
      expect([...kinds.values()].reduce((a, b) => a + b, 0)).toBe(TOTAL)
      expect(kinds.size).toBeGreaterThanOrEqual(20)

      for (const [backend, counts] of Object.entries(accepted)) {
        // Every genuine event was queued exactly once on each queue it was delivered to.
        expect(
          [...counts].filter(([, n]) => n !== 1),
          backend,
        ).toEqual([])
        // Nothing but genuine events is in the queue, each exactly as signed.
        if (backend === 'redis') await view.forward()
        const jobs =
          backend === 'redis'
            ? await view.queue.getJobs(['waiting', 'prioritized', 'delayed'], 0, -1)
            : await postgresJobs()
        const expected = new Map([...counts.keys()].map((id) => [jobIdFor(id), genuineBodies.get(id)!]))
        expect(jobs.length, backend).toBe(expected.size)
        for (const job of jobs) {
          const body = expected.get(job.id!)
          expect(body, `${backend} job ${job.id} is no genuine delivery`).toBeDefined()
          expect(job.data.event).toEqual(JSON.parse(body!.toString('utf8')))
        }
      }
    },
  )
})

async function postgresJobs() {
  const queue = createBackendQueue<{ event: unknown }>(WEBHOOK_EVENTS_QUEUE, {
    kind: 'postgres',
    connectionString: TEST_DATABASE_URL,
    schema: queueSchema,
  })
  try {
    return await queue.getJobs(['waiting', 'prioritized', 'delayed'], 0, -1)
  } finally {
    await queue.close()
  }
}
