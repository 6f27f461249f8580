import fc from 'fast-check'
import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { TalliedHistogram } from './tallied-histogram.js'

const LABELS = ['method', 'route', 'status_code'] as const

/** The same observations into prom-client's Histogram and a TalliedHistogram, each on its own registry. */
function both(buckets?: readonly number[]) {
  const ours = new Registry()
  const theirs = new Registry()
  const tallied = new TalliedHistogram('t_seconds', 'Help text', LABELS, ours, buckets)
  const reference = new Histogram({
    name: 't_seconds',
    help: 'Help text',
    labelNames: LABELS,
    registers: [theirs],
    ...(buckets ? { buckets: [...buckets] } : {}),
  })
  return { ours, theirs, tallied, reference }
}

const observation = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  route: fc.constantFrom('/webhooks', '/api/invoices/:id', 'unmatched', 'a "quoted"\\ route'),
  status: fc.constantFrom('200', '202', '404', '503', '0'),
  seconds: fc.oneof(
    fc.double({ min: 0, max: 20, noNaN: true }),
    fc.constantFrom(0, 0.005, 0.01, 2.5, 10, 10.000001),
  ),
})

describe('TalliedHistogram', () => {
  it('exports exactly what prom-client’s Histogram exports for the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(observation, { maxLength: 60 }),
        fc.option(fc.constant([0.001, 0.1, 1]), { nil: undefined }),
        async (observations, buckets) => {
          const { ours, theirs, tallied, reference } = both(buckets)
          for (const { method, route, status, seconds } of observations) {
            tallied.labels(method, route, status).observe(seconds)
            reference.labels(method, route, status).observe(seconds)
          }
          expect(await ours.metrics()).toBe(await theirs.metrics())
          expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON())
        },
      ),
      { numRuns: 300 },
    )
  })

  it('forgets its series on a reset, as prom-client does, and counts a kept series again from zero', async () => {
    const { ours, theirs, tallied, reference } = both()
    const kept = tallied.labels('POST', '/webhooks', '202')
    kept.observe(0.002)
    tallied.labels('GET', '/healthz', '200').observe(0.001)
    reference.labels('POST', '/webhooks', '202').observe(0.002)
    reference.labels('GET', '/healthz', '200').observe(0.001)
    ours.resetMetrics()
    theirs.resetMetrics()
    expect(await ours.metrics()).toBe(await theirs.metrics())
    kept.observe(0.3)
    reference.labels('POST', '/webhooks', '202').observe(0.3)
    expect(await ours.metrics()).toBe(await theirs.metrics())
  })

  it('refuses a value that is not a number, and the wrong number of label values', () => {
    const { tallied } = both()
    expect(() => tallied.labels('POST', '/webhooks', '202').observe(Number.NaN)).toThrow(TypeError)
    expect(() => tallied.labels('POST', '/webhooks')).toThrow(/3 label values/)
  })
})
