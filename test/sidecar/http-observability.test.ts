import { readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/observability/index.js'
import { signed, testEvent } from '../receiver/deliveries.js'
import { API_TOKEN, WEBHOOK_SECRET, sampleValue, startTestSidecar } from './sidecar-fixture.js'

// Every role on the Redis queue, so every metric a process can register is registered.
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let logText = ''

beforeAll(async () => {
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logText += String(chunk)
        done()
      },
    }),
  })
  sidecar = await startTestSidecar(
    'httpobs',
    ['receiver', 'worker', 'api'],
    { ACCESS_LOG: 'on', TRANSFER_SCAN_SECONDS: '3600', ALERT_TICK_SECONDS: '3600' },
    { logger },
  )
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

type AccessLine = {
  msg: string
  method: string
  route: string
  status: number
  durationMs: number
  requestId: string
}
const accessLines = () =>
  logText
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AccessLine)
    .filter((line) => line.msg === 'request')

async function scrape(): Promise<string> {
  return (await fetch(`${sidecar.url}/metrics`)).text()
}

describe('the access log (ACCESS_LOG=on)', () => {
  it('writes one line per request with method, route template, status, duration and request id, and no query or token', async () => {
    const answer = await fetch(`${sidecar.url}/api/invoices/inv-404-canary?token=query-secret-canary`, {
      headers: { authorization: `Bearer ${API_TOKEN}`, 'x-request-id': 'req-access-log-1' },
    })
    expect(answer.status).toBe(404)
    await fetch(`${sidecar.url}/no/such/page-canary`)
    const lines = accessLines()
    expect(lines.find((line) => line.requestId === 'req-access-log-1')).toMatchObject({
      method: 'GET',
      route: '/api/invoices/:id',
      status: 404,
    })
    expect(lines.find((line) => line.requestId === 'req-access-log-1')!.durationMs).toBeGreaterThanOrEqual(0)
    expect(lines.some((line) => line.route === 'unmatched' && line.status === 404)).toBe(true)
    for (const canary of ['query-secret-canary', API_TOKEN, 'inv-404-canary', 'page-canary'])
      expect(logText).not.toContain(canary)
  })
})

describe('per-route request metrics', () => {
  it('count requests and 5xx errors by route template, never by raw path', async () => {
    const event = testEvent()
    const delivery = signed(JSON.stringify(event), WEBHOOK_SECRET)
    expect((await fetch(`${sidecar.url}/webhooks`, { method: 'POST', ...delivery })).status).toBe(202)
    await fetch(`${sidecar.url}/api/invoices/inv-a`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
    await fetch(`${sidecar.url}/api/invoices/inv-b`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
    const text = await scrape()
    const count = (labels: Record<string, string>) =>
      sampleValue(text, 'bankrec_http_request_duration_seconds_count', labels)
    expect(count({ method: 'POST', route: '/webhooks', status_code: '202' })).toBe(1)
    expect(count({ method: 'GET', route: '/api/invoices/:id', status_code: '404' })).toBeGreaterThanOrEqual(2)
    expect(text).not.toContain('inv-a')
    expect(text).not.toMatch(/route="\/api\/invoices\/inv/)
  })

  it('counts bank API attempts per endpoint template and jobs per queue', async () => {
    // The worker role's start-up listed the connections and the schedules ran jobs.
    const text = await scrape()
    expect(
      sampleValue(text, 'bankrec_bank_api_request_duration_seconds_count', {
        method: 'GET',
        endpoint: '/v1/connections',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1)
    expect(text).toMatch(/^bankrec_job_duration_seconds_count\{queue="[\w-]+",outcome="completed"\} [1-9]/m)
  })
})

describe('docs/operations.md', () => {
  it('lists every metric the registry serves, with its type, and names no other', async () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8')
    const metricsSection = doc.slice(
      doc.indexOf('## Metrics'),
      doc.indexOf('\n## ', doc.indexOf('## Metrics') + 5),
    )
    const documented = new Map(
      [...metricsSection.matchAll(/^\| `(bankrec_\w+)` +\| (\w+) /gm)].map((m) => [m[1]!, m[2]!]),
    )
    const served = await sidecar.context.metrics.registry.getMetricsAsJSON()
    const ours = new Map(
      served.filter((m) => m.name.startsWith('bankrec_')).map((m) => [m.name, String(m.type)]),
    )
    expect([...ours.keys()].sort()).toEqual([...documented.keys()].sort())
    for (const [name, type] of ours) expect(documented.get(name), name).toBe(type)
    // The rest is prom-client's default process metrics, the table's `process_*`, `nodejs_*` row.
    expect(served.filter((m) => !/^(bankrec|process|nodejs)_/.test(m.name)).map((m) => m.name)).toEqual([])
    expect(metricsSection).toContain('`process_*`, `nodejs_*`')
  })

  it("names bankrec's counters, and only counters, with _total", async () => {
    // prom-client's defaults are its own (nodejs_active_resources_total is a gauge).
    const served = (await sidecar.context.metrics.registry.getMetricsAsJSON()).filter((m) =>
      m.name.startsWith('bankrec_'),
    )
    for (const metric of served)
      expect(metric.name.endsWith('_total'), `${metric.name} (${metric.type})`).toBe(
        String(metric.type) === 'counter',
      )
  })
})
