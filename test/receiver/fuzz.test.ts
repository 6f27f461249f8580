import { Agent, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisWebhookEventQueue, type WebhookEventQueue } from '../../src/queue/index.js'
import { createReceiverServer, signPayload, type ReceiverServer } from '../../src/receiver/index.js'
import { REDIS_URL, SECRET, inspectQueue, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('fuzz')
const view = inspectQueue(prefix)
const LIMIT = 8 * 1024
const TOTAL = 20_000
const OVER_HTTP = 1_000
let queue: WebhookEventQueue
let server: ReceiverServer
let url: string

beforeAll(async () => {
  queue = createRedisWebhookEventQueue({ url: REDIS_URL, prefix })
  server = createReceiverServer({ secrets: ['whsec_rotated_in', SECRET], queue, bodyLimitBytes: LIMIT })
  url = await server.listen({ port: 0 })
})

afterAll(async () => {
  agent.destroy()
  await server.close()
  await queue.close()
  await view.close()
})

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function seeded(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  }
}

const HEADER_CODES = [
  ...Array.from({ length: 95 }, (_, i) => 32 + i),
  ...Array.from({ length: 128 }, (_, i) => 128 + i),
]

type Case = {
  kind: string
  contentType: string | undefined
  signature: string | undefined
  body: Buffer
  /** Allowed answers. */
  expect: readonly number[]
  /** The event id of a genuine delivery: exactly one delivery of each is answered 202, the others 200. */
  genuineId?: string
}

function generate(seed: number, count: number): Case[] {
  const random = seeded(seed)
  const now = () => Math.floor(Date.now() / 1000)
  const sign = (body: Buffer, secret = SECRET, t = now()) =>
    signPayload({ payload: body, secret, timestamp: t })
  const genuine: { id: string; body: Buffer }[] = []
  const envelope = (n: number, type = 'test') =>
    Buffer.from(
      JSON.stringify({
        id: `evt_fuzz_${seed}_${n}`,
        type,
        createdAt: new Date().toISOString(),
        apiVersion: 'v1',
        data: type === 'test' ? { webhookId: `wh_${random.int(1e6)}` } : { anything: random.next() },
      }),
    )
  const garbage = (size: number) => Buffer.from(Array.from({ length: size }, () => random.int(256)))
  const flipByte = (bytes: Buffer) => {
    const copy = Buffer.from(bytes)
    copy[random.int(copy.length)]! ^= 1 + random.int(255)
    return copy
  }
  const cases: Case[] = []
  for (let n = 0; n < count; n++) {
    const roll = random.int(14)
    if (roll <= 2 || genuine.length === 0) {
      const type = random.pick(['test', 'test', 'test', 'account.created', 'invoice.paid'])
      const body = envelope(n, type)
      const id = `evt_fuzz_${seed}_${n}`
      genuine.push({ id, body })
      const secret = random.pick([SECRET, 'whsec_rotated_in'])
      cases.push({
        kind: 'genuine',
        contentType: 'application/json',
        signature: sign(body, secret),
        body,
        expect: [202],
        genuineId: id,
      })
    } else if (roll === 3) {
      const { id, body } = random.pick(genuine)
      cases.push({
        kind: 'redelivery',
        contentType: 'application/json; charset=utf-8',
        signature: sign(body),
        body,
        expect: [200, 202],
        genuineId: id,
      })
    } else if (roll === 4) {
      const { body } = random.pick(genuine)
      const forged = flipByte(body)
      cases.push({
        kind: 'body changed after signing',
        contentType: 'application/json',
        signature: sign(body),
        body: forged,
        expect: [401],
      })
    } else if (roll === 5) {
      const { body } = random.pick(genuine)
      const header = sign(body)
      const at = random.int(header.length)
      const changed = header.slice(0, at) + String.fromCharCode(32 + random.int(95)) + header.slice(at + 1)
      if (changed === header) continue
      cases.push({
        kind: 'header changed',
        contentType: 'application/json',
        signature: changed,
        body,
        expect: [400, 401],
      })
    } else if (roll === 6) {
      const body = envelope(n)
      cases.push({
        kind: 'wrong secret',
        contentType: 'application/json',
        signature: sign(body, 'whsec_attacker'),
        body,
        expect: [401],
      })
    } else if (roll === 7) {
      const body = envelope(n)
      const skew = random.pick([-1, 1]) * (301 + random.int(100_000))
      cases.push({
        kind: 'timestamp outside tolerance',
        contentType: 'application/json',
        signature: sign(body, SECRET, now() + skew),
        body,
        expect: [401],
      })
    } else if (roll === 8) {
      const body = garbage(1 + random.int(600))
      // Random bytes are almost never JSON; when they happen to be, they are no envelope.
      cases.push({
        kind: 'signed garbage',
        contentType: 'application/json',
        signature: sign(body),
        body,
        expect: [400],
      })
    } else if (roll === 9) {
      const body = Buffer.from(
        JSON.stringify(random.pick([[], null, 1, 'x', { id: 1 }, { id: 'evt', type: 'test' }])),
      )
      cases.push({
        kind: 'signed non-envelope',
        contentType: 'application/json',
        signature: sign(body),
        body,
        expect: [400],
      })
    } else if (roll === 10) {
      const body = envelope(n)
      const type = random.pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        undefined,
      ])
      cases.push({ kind: 'not JSON by type', contentType: type, signature: sign(body), body, expect: [415] })
    } else if (roll === 11) {
      const body = Buffer.concat([envelope(n), Buffer.alloc(LIMIT, 32)])
      cases.push({
        kind: 'too large',
        contentType: 'application/json',
        signature: sign(body),
        body,
        expect: [413],
      })
    } else if (roll === 12) {
      const body = random.pick([envelope(n), garbage(random.int(300))])
      const header = random.pick([
        undefined,
        '',
        'garbage',
        `t=${now()}`,
        `v1=${'0'.repeat(64)}`,
        `t=x,v1=${'a'.repeat(64)}`,
      ])
      cases.push({
        kind: 'missing or broken header',
        contentType: 'application/json',
        signature: header,
        body,
        expect: [400, 401],
      })
    } else {
      const body = garbage(random.int(2_000))
      // Any byte an HTTP header can carry: visible ASCII, space and the latin-1 upper half.
      const header = Array.from({ length: random.int(120) }, () =>
        String.fromCharCode(random.pick(HEADER_CODES)),
      ).join('')
      cases.push({
        kind: 'noise',
        contentType: 'application/json',
        signature: header,
        body,
        expect: [400, 401],
      })
    }
  }
  return cases
}

const agent = new Agent({ keepAlive: true, maxSockets: 50 })

/** node:http rather than fetch, which refuses latin-1 header values a real sender may still send. */
function post(headers: Record<string, string>, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/webhooks`, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': body.length },
    })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    // A 413 may close the connection before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    )
    req.end(body)
  })
}

describe('fuzzing the receiver with 20,000 random and mutated deliveries', () => {
  it('answers each with its code, queues only genuine events and each of them once', async () => {
    const cases = generate(20260302, TOTAL)
    const wrong: string[] = []
    const accepted = new Map<string, number>()
    const check = (c: Case, status: number) => {
      if (!c.expect.includes(status)) wrong.push(`${c.kind}: ${status}, expected ${c.expect.join(' or ')}`)
      if (c.genuineId && status === 202) accepted.set(c.genuineId, (accepted.get(c.genuineId) ?? 0) + 1)
    }
    // A sample goes over HTTP first, the rest straight into the shared core, which is far faster.
    const overHttp = cases.slice(0, OVER_HTTP)
    for (let i = 0; i < overHttp.length; i += 50) {
      const chunk = overHttp.slice(i, i + 50)
      const statuses = await Promise.all(
        chunk.map(async (c) => {
          const headers: Record<string, string> = {}
          if (c.contentType !== undefined) headers['content-type'] = c.contentType
          if (c.signature !== undefined) headers['service-signature'] = c.signature
          return post(headers, c.body)
        }),
      )
      chunk.forEach((c, j) => check(c, statuses[j]!))
    }
    const inProcess = cases.slice(OVER_HTTP)
    for (let i = 0; i < inProcess.length; i += 250) {
      const chunk = inProcess.slice(i, i + 250)
      const answers = await Promise.all(
        chunk.map((c) =>
          server.receiver.receive({ contentType: c.contentType, signature: c.signature, body: c.body }),
        ),
      )
      chunk.forEach((c, j) => check(c, answers[j]!.status))
    }
    expect(wrong.slice(0, 10)).toEqual([])

    const genuineIds = new Set(cases.flatMap((c) => (c.genuineId ? [c.genuineId] : [])))
    expect([...genuineIds].filter((id) => accepted.get(id) !== 1)).toEqual([])
    const counts = await view.queue.getJobCounts('waiting')
    expect(counts.waiting).toBe(genuineIds.size)
    const jobs = await view.queue.getJobs(['waiting'], 0, -1)
    for (const job of jobs) expect(genuineIds.has(job.id!)).toBe(true)
  })
})
