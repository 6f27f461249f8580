import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SIGNATURE_HEADER, verifySignature } from '../../../src/signing/index.js'

export type AppEvent = { id: string; type: string; createdAt: string; data: any }

export type AppEndpoint = {
  url: string
  /** Every event processed, once per id, in arrival order. */
  processed: Map<string, AppEvent>
  /** Signed deliveries answered 2xx, redeliveries of a processed id included. */
  accepted(): number
  /** Deliveries of an id already processed: answered 2xx and not processed again. */
  redeliveries(): number
  /** Deliveries refused: a bad signature or body (must stay 0), or an injected failure. */
  refused(): { badSignature: number; injected: number }
  close(): Promise<void>
}

export type AppEndpointOptions = {
  secret: string
  /** Answers 503 to this share of deliveries, before processing them, so bankrec must retry. @defaultValue 0 */
  failRate?: number
  /** In [0, 1): the draws of the injected failures (a seeded stream makes them repeatable). */
  random?: () => number
  /** Called once per event id, on its first accepted delivery, with the arrival time (performance.now()). */
  onEvent?(event: AppEvent, arrivedAt: number): void
}

/**
 * The company's own app as a test stands in for it: verifies each delivery's signature with the app secret,
 * processes each event id once (a redelivery is answered 2xx and ignored) and keeps what it processed.
 */
export async function startAppEndpoint(options: AppEndpointOptions): Promise<AppEndpoint> {
  const processed = new Map<string, AppEvent>()
  let accepted = 0
  let redeliveries = 0
  let badSignature = 0
  let injected = 0
  const random = options.random ?? Math.random
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const arrivedAt = performance.now()
      const raw = Buffer.concat(chunks)
      let event: AppEvent
      try {
        verifySignature({ payload: raw, header: req.headers[SIGNATURE_HEADER], secrets: options.secret })
        event = JSON.parse(raw.toString('utf8')) as AppEvent
        if (typeof event.id !== 'string' || typeof event.type !== 'string') throw new Error('not an event')
      } catch {
        badSignature++
        res.writeHead(400).end()
        return
      }
      if ((options.failRate ?? 0) > 0 && random() < options.failRate!) {
        injected++
        res.writeHead(503).end()
        return
      }
      accepted++
      if (processed.has(event.id)) {
        redeliveries++
      } else {
        processed.set(event.id, event)
        options.onEvent?.(event, arrivedAt)
      }
      res.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/bankrec-events`,
    processed,
    accepted: () => accepted,
    redeliveries: () => redeliveries,
    refused: () => ({ badSignature, injected }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
