import { EventEmitter } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ReceivedDelivery = { headers: IncomingHttpHeaders; body: string; event: any }

export type WebhookReceiver = {
  url: string
  received: ReceivedDelivery[]
  /** Status codes to answer, in order; once used up every request gets 200. */
  answerWith(statuses: number[]): void
  /** Resolves once at least `count` deliveries have arrived. */
  waitForCount(count: number): Promise<void>
  close(): Promise<void>
}

/** A real HTTP receiver on 127.0.0.1 that records every delivery. */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = []
  let statuses: number[] = []
  const arrivals = new EventEmitter()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let event: unknown
      try {
        event = JSON.parse(body)
      } catch {
        event = undefined
      }
      received.push({ headers: req.headers, body, event })
      res.statusCode = statuses.shift() ?? 200
      res.end()
      arrivals.emit('delivery')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answerWith(next) {
      statuses = [...next]
    },
    waitForCount: (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.length < count) return
          arrivals.off('delivery', check)
          resolve()
        }
        arrivals.on('delivery', check)
        check()
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
