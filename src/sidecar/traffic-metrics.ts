import { Counter, Histogram, type Registry } from 'prom-client'
import type { AttemptEndEvent } from '../api-client/index.js'
import type { JobObserver } from '../queue/index.js'

/** One HTTP request the sidecar answered: `route` is the matched template (`/api/invoices/:id`), never a raw path. */
export type RequestObservation = { method: string; route: string; status: number; seconds: number }

/** Latency and errors of what flows through a process: its HTTP routes, its jobs, its calls to the bank. */
export type TrafficMetrics = {
  request(observation: RequestObservation): void
  job: JobObserver
  bankCall(event: AttemptEndEvent): void
}

/** Registers the traffic metrics on the sidecar's registry (docs/operations.md lists them). */
export function createTrafficMetrics(registry: Registry): TrafficMetrics {
  const registers = [registry]
  const requestDuration = new Histogram({
    name: 'bankrec_http_request_duration_seconds',
    help: 'HTTP requests answered, by method, route template and status code, and how long they took',
    labelNames: ['method', 'route', 'status_code'],
    registers,
  })
  const requestErrors = new Counter({
    name: 'bankrec_http_request_errors_total',
    help: 'HTTP requests answered with a 5xx status, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers,
  })
  const jobDuration = new Histogram({
    name: 'bankrec_job_duration_seconds',
    help: 'Jobs this process ran, by queue and outcome (completed, failed, delayed), and how long they took',
    labelNames: ['queue', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  })
  const jobFailures = new Counter({
    name: 'bankrec_job_failures_total',
    help: 'Job runs that failed (retried with back-off, or failed for good), by queue',
    labelNames: ['queue'],
    registers,
  })
  const bankDuration = new Histogram({
    name: 'bankrec_bank_api_request_duration_seconds',
    help: 'Attempts of bank API calls, by method, endpoint template and status code (none: no answer)',
    labelNames: ['method', 'endpoint', 'status_code'],
    registers,
  })
  const bankErrors = new Counter({
    name: 'bankrec_bank_api_errors_total',
    help: 'Bank API attempts answered 4xx/5xx or not at all, by method, endpoint template and error',
    labelNames: ['method', 'endpoint', 'error'],
    registers,
  })
  const requestSeries = new Map<string, { observe(seconds: number): void }>()
  return {
    request({ method, route, status, seconds }) {
      // Every request observes: its series is looked up once (prom-client hashes the labels on each call).
      const key = `${method} ${route} ${status}`
      let series = requestSeries.get(key)
      if (!series) {
        series = requestDuration.labels(method, route, String(status))
        requestSeries.set(key, series)
      }
      series.observe(seconds)
      if (status >= 500) requestErrors.inc({ method, route, status_code: String(status) })
    },
    job(queue, outcome, seconds) {
      jobDuration.observe({ queue, outcome }, seconds)
      if (outcome === 'failed') jobFailures.inc({ queue })
    },
    bankCall({ method, route, status, outcome, elapsedMs }) {
      bankDuration.observe(
        { method, endpoint: route, status_code: status === undefined ? 'none' : String(status) },
        elapsedMs / 1000,
      )
      if (status === undefined) bankErrors.inc({ method, endpoint: route, error: outcome })
      else if (status >= 400) bankErrors.inc({ method, endpoint: route, error: String(status) })
    },
  }
}
