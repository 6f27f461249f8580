import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { createTrafficMetrics } from './traffic-metrics.js'

async function value(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)
  const sample = metric?.values.find((v) =>
    Object.entries(labels).every(([key, wanted]) => String(v.labels[key]) === wanted),
  )
  return sample?.value ?? 0
}

describe('createTrafficMetrics', () => {
  it('counts 5xx answers as route errors, and nothing below', async () => {
    const registry = new Registry()
    const traffic = createTrafficMetrics(registry)
    traffic.request({ method: 'GET', route: '/api/invoices/:id', status: 503, seconds: 0.01 })
    traffic.request({ method: 'GET', route: '/api/invoices/:id', status: 404, seconds: 0.01 })
    traffic.request({ method: 'POST', route: '/webhooks', status: 202, seconds: 0.002 })
    const errors = { method: 'GET', route: '/api/invoices/:id', status_code: '503' }
    expect(await value(registry, 'bankrec_http_request_errors_total', errors)).toBe(1)
    expect(
      await value(registry, 'bankrec_http_request_errors_total', { ...errors, status_code: '404' }),
    ).toBe(0)
    expect(
      await value(registry, 'bankrec_http_request_duration_seconds', {
        method: 'POST',
        route: '/webhooks',
        status_code: '202',
      }),
    ).toBeGreaterThan(0)
  })

  it('counts failed jobs per queue, not delayed or completed ones', async () => {
    const registry = new Registry()
    const traffic = createTrafficMetrics(registry)
    traffic.job('connection-sync', 'failed', 0.5)
    traffic.job('connection-sync', 'delayed', 0.1)
    traffic.job('connection-sync', 'completed', 0.2)
    expect(await value(registry, 'bankrec_job_failures_total', { queue: 'connection-sync' })).toBe(1)
  })

  it('counts bank API errors by status, timeout or network, per endpoint template', async () => {
    const registry = new Registry()
    const traffic = createTrafficMetrics(registry)
    const call = { method: 'GET' as const, route: '/v1/connections/{id}', elapsedMs: 20 }
    traffic.bankCall({ ...call, status: 200, outcome: 'answer' })
    traffic.bankCall({ ...call, status: 429, outcome: 'answer' })
    traffic.bankCall({ ...call, status: undefined, outcome: 'timeout' })
    const errors = (error: string) =>
      value(registry, 'bankrec_bank_api_errors_total', { endpoint: '/v1/connections/{id}', error })
    expect(await errors('429')).toBe(1)
    expect(await errors('timeout')).toBe(1)
    expect(await errors('200')).toBe(0)
  })
})
