import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AlertDeliveryError,
  logAlert,
  sendJsonAlert,
  sendSlackAlert,
  type AlertLogger,
} from '../../src/alert-delivery/index.js'
import {
  connectionNotice,
  emptyHealth,
  observe,
  renderJsonAlert,
  renderSlackMessage,
  type AlertNotice,
} from '../../src/alerts/index.js'

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang'
type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string }

const NOW = new Date('2026-03-02T09:00:00.000Z')
const SECRET = 'whsec_alerts_7c1d9e'
const SLACK_PATH = '/services/T0001/B0002/sEcReTtOkEn'

let server: Server
let base: string
let received: Received[] = []
let answers: Answer[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      const answer = answers.shift() ?? { status: 200, body: 'ok' }
      if (answer === 'hang') return
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  received = []
  answers = []
})

function notice(): AlertNotice {
  const { effects } = observe(
    emptyHealth('conn_7f3a'),
    { status: 'reauthRequired', observedAt: NOW.toISOString(), source: 'webhook', eventId: 'evt_1' },
    NOW,
    { erroredAfterSeconds: 3600, staleSyncSeconds: 93_600, reminderSeconds: 14_400 },
  )
  const alert = effects.find((e) => e.type === 'alert')
  if (!alert || alert.type !== 'alert') throw new Error('no alert')
  return connectionNotice(alert, {
    id: 'conn_7f3a',
    institutionName: 'Northwind Bank',
    portalUrl: 'https://online.northwind-bank.example/business',
  })
}

async function failure(promise: Promise<unknown>): Promise<AlertDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof AlertDeliveryError))
    throw new Error(`expected AlertDeliveryError, got ${String(error)}`)
  return error
}

describe('Slack sink', () => {
  it('posts the blocks as JSON to the incoming webhook', async () => {
    const message = renderSlackMessage(notice())
    await expect(sendSlackAlert(`${base}${SLACK_PATH}`, message)).resolves.toEqual({ status: 200 })
    expect(received).toHaveLength(1)
    expect(received[0]).toMatchObject({ method: 'POST', url: SLACK_PATH })
    expect(received[0]!.headers['content-type']).toBe('application/json')
    expect(JSON.parse(received[0]!.body)).toEqual(message)
  })

  it('fails retryably on a 5xx and on a 429, with Retry-After, so the queue tries again', async () => {
    answers = [
      { status: 503, body: 'service unavailable' },
      { status: 429, headers: { 'retry-after': '30' } },
    ]
    const unavailable = await failure(sendSlackAlert(`${base}${SLACK_PATH}`, renderSlackMessage(notice())))
    expect(unavailable).toMatchObject({
      code: 'alert_delivery_failed',
      sink: 'slack',
      status: 503,
      retryable: true,
    })
    const limited = await failure(sendSlackAlert(`${base}${SLACK_PATH}`, renderSlackMessage(notice())))
    expect(limited).toMatchObject({ status: 429, retryable: true, retryAfterMs: 30_000 })
  })

  it('fails for good on a 4xx such as invalid_payload, naming Slack’s reason but never the URL', async () => {
    answers = [{ status: 400, body: 'invalid_payload' }]
    const error = await failure(sendSlackAlert(`${base}${SLACK_PATH}`, renderSlackMessage(notice())))
    expect(error).toMatchObject({ sink: 'slack', failure: 'status', status: 400, retryable: false })
    expect(error.message).toContain('invalid_payload')
    expect(error.message).not.toContain('sEcReTtOkEn')
  })

  it('fails retryably when nothing listens, without the URL in the error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const error = await failure(
      sendSlackAlert(`http://127.0.0.1:${port}${SLACK_PATH}`, renderSlackMessage(notice())),
    )
    expect(error).toMatchObject({ failure: 'network', status: undefined, retryable: true })
    expect(JSON.stringify({ message: error.message, cause: error.cause })).not.toContain('sEcReTtOkEn')
  })

  it('gives up on a sink that does not answer within timeoutMs, retryably', async () => {
    answers = ['hang']
    const error = await failure(
      sendSlackAlert(`${base}${SLACK_PATH}`, renderSlackMessage(notice()), { timeoutMs: 200 }),
    )
    expect(error).toMatchObject({ failure: 'timeout', retryable: true })
  })
})

describe('JSON webhook sink', () => {
  it('signs the raw body with Service-Signature t=<unix>,v1=<hex> that node:crypto verifies', async () => {
    const body = renderJsonAlert(notice())
    await sendJsonAlert(`${base}/alerts`, body, SECRET, { now: NOW })
    const [delivery] = received
    const header = String(delivery!.headers['service-signature'])
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
    expect(match).not.toBeNull()
    const [, timestamp, digest] = match!
    expect(Number(timestamp)).toBe(Math.floor(NOW.getTime() / 1000))
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${delivery!.body}`, 'utf8').digest()
    expect(timingSafeEqual(expected, Buffer.from(digest!, 'hex'))).toBe(true)
    expect(JSON.parse(delivery!.body)).toEqual(body)
    expect(delivery!.headers['alert-id']).toBe(body.id)
    expect(delivery!.headers['content-type']).toBe('application/json')
  })

  it('signs with a different digest under another secret, so a receiver can tell', async () => {
    await sendJsonAlert(`${base}/alerts`, renderJsonAlert(notice()), 'another-secret', { now: NOW })
    const [delivery] = received
    const [, timestamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
      String(delivery!.headers['service-signature']),
    )!
    const withOurs = createHmac('sha256', SECRET)
      .update(`${timestamp}.${delivery!.body}`, 'utf8')
      .digest('hex')
    expect(digest).not.toBe(withOurs)
  })

  it('throws a typed error on a non-2xx answer, without the secret in it', async () => {
    answers = [{ status: 500, body: 'boom' }, { status: 404 }]
    const server = await failure(
      sendJsonAlert(`${base}/alerts`, renderJsonAlert(notice()), SECRET, { now: NOW }),
    )
    expect(server).toMatchObject({ sink: 'webhook', status: 500, retryable: true })
    const missing = await failure(
      sendJsonAlert(`${base}/alerts`, renderJsonAlert(notice()), SECRET, { now: NOW }),
    )
    expect(missing).toMatchObject({ sink: 'webhook', status: 404, retryable: false })
    expect(`${server.message} ${missing.message}`).not.toContain(SECRET)
  })

  it('never follows a redirect: a 3xx is a configuration error, and the signed alert goes nowhere else', async () => {
    for (const status of [301, 302, 307, 308]) {
      answers = [{ status, headers: { location: `${base}/elsewhere` } }]
      received = []
      const error = await failure(
        sendJsonAlert(`${base}/alerts`, renderJsonAlert(notice()), SECRET, { now: NOW }),
      )
      expect(error).toMatchObject({ sink: 'webhook', status, retryable: false })
      expect(error.message).toMatch(/redirect/)
      expect(received.map((r) => r.url)).toEqual(['/alerts'])
    }
    answers = [{ status: 308, headers: { location: `${base}/elsewhere` } }]
    received = []
    const slack = await failure(sendSlackAlert(`${base}${SLACK_PATH}`, renderSlackMessage(notice())))
    expect(slack).toMatchObject({ sink: 'slack', status: 308, retryable: false })
    expect(received).toHaveLength(1)
  })
})

describe('log sink', () => {
  it('writes one line at the level of the severity, with the ids and no connection details beyond the id', () => {
    const lines: { level: string; object: Record<string, unknown>; message: string }[] = []
    const logger: AlertLogger = {
      info: (object, message) => lines.push({ level: 'info', object, message }),
      warn: (object, message) => lines.push({ level: 'warn', object, message }),
      error: (object, message) => lines.push({ level: 'error', object, message }),
    }
    const alert = notice()
    logAlert(logger, alert)
    logAlert(logger, { ...alert, type: 'recovery', severity: 'info' })
    logAlert(logger, { ...alert, severity: 'warning' })
    expect(lines.map((l) => l.level)).toEqual(['error', 'info', 'warn'])
    expect(lines[0]).toMatchObject({
      message: alert.title,
      object: {
        alert: {
          id: alert.id,
          type: 'alert',
          severity: 'critical',
          incidentId: alert.incidentId,
          connectionId: 'conn_7f3a',
        },
        action: alert.action,
      },
    })
  })
})
