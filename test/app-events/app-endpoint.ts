import { createHmac, timingSafeEqual } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type AppDelivery = { id: string; type: string; createdAt: string; data: any; verified: boolean }

/**
 * The company's own app, as a test fixture on 127.0.0.1: it checks Service-Signature with node:crypto (not with
 * bankrec's code), answers the scripted statuses first, and processes each event id once, as an app should.
 */
export type AppEndpoint = {
  url: string
  /** Every request that reached the app, in order. */
  deliveries: AppDelivery[]
  /** Events the app accepted and processed, each id once. */
  processed: Map<string, AppDelivery>
  /** Status codes to answer, in order; once used up every verified request gets 200. */
  answerWith(statuses: number[]): void
  /** Resolves once `id` has been processed. */
  waitFor(id: string): Promise<AppDelivery>
  close(): Promise<void>
}

function verify(raw: string, header: string | undefined, secret: string): boolean {
  const parts = new Map((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]))
  const t = parts.get('t')
  const v1 = parts.get('v1')
  if (!t || !v1) return false
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest()
  const given = Buffer.from(v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export async function startAppEndpoint(secret: string): Promise<AppEndpoint> {
  const deliveries: AppDelivery[] = []
  const processed = new Map<string, AppDelivery>()
  const arrivals = new EventEmitter()
  let statuses: number[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const verified = verify(raw, req.headers['service-signature'] as string | undefined, secret)
      const body = JSON.parse(raw)
      const delivery: AppDelivery = { ...body, verified }
      deliveries.push(delivery)
      if (!verified) {
        res.statusCode = 400
        res.end()
        return
      }
      const status = statuses.shift() ?? 200
      if (status < 300 && !processed.has(delivery.id)) {
        processed.set(delivery.id, delivery)
        arrivals.emit('processed', delivery.id)
      }
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/bankrec-events`,
    deliveries,
    processed,
    answerWith(next) {
      statuses = [...next]
    },
    waitFor: (id) =>
      new Promise((resolve) => {
        const check = () => {
          const done = processed.get(id)
          if (!done) return
          arrivals.off('processed', check)
          resolve(done)
        }
        arrivals.on('processed', check)
        check()
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
