import { Agent, request } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'
import { signPayload } from '../src/receiver/index.js'

/** What bench/receiver.ts asks of one load run. */
export type LoadOptions = {
  url: string
  connections: number
  warmupMs: number
  durationMs: number
  secret: string
  /** Makes every event id of the run unique. */
  idPrefix: string
  bodyBytes: number
}

export type LoadResult = {
  requests: number
  non2xx: number
  errors: number
  seconds: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

const options = workerData as LoadOptions
const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
const target = new URL(options.url)
const createdAt = new Date().toISOString()
const skeleton = JSON.stringify({
  id: `${options.idPrefix}_00000000`,
  type: 'test',
  createdAt,
  apiVersion: 'v1',
  data: { webhookId: 'wh_bench', note: '' },
})
const padding = 'x'.repeat(Math.max(0, options.bodyBytes - skeleton.length))
let sequence = 0

function nextDelivery(): { body: string; signature: string } {
  const id = `${options.idPrefix}_${(sequence++).toString(36).padStart(8, '0')}`
  const body = `{"id":"${id}","type":"test","createdAt":"${createdAt}","apiVersion":"v1","data":{"webhookId":"wh_bench","note":"${padding}"}}`
  return {
    body,
    signature: signPayload({
      payload: body,
      secret: options.secret,
      timestamp: Math.floor(Date.now() / 1000),
    }),
  }
}

function send(): Promise<number> {
  const { body, signature } = nextDelivery()
  return new Promise((resolve) => {
    const req = request({
      agent,
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'service-signature': signature,
      },
    })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

async function run(): Promise<LoadResult> {
  const start = performance.now()
  const measureFrom = start + options.warmupMs
  const end = measureFrom + options.durationMs
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  const connection = async () => {
    for (let now = performance.now(); now < end; now = performance.now()) {
      const status = await send()
      const done = performance.now()
      if (now < measureFrom) continue
      latencies.push(done - now)
      if (status === 0) errors++
      else if (status < 200 || status > 299) non2xx++
    }
  }
  await Promise.all(Array.from({ length: options.connections }, connection))
  const seconds = (performance.now() - measureFrom) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return {
    requests: latencies.length,
    non2xx,
    errors,
    seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies.at(-1) ?? 0,
  }
}

parentPort?.postMessage(await run())
