import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * `at`: when it was received (ms since the epoch). `answerLost`: the sender was gone before the answer was written
 * (it gave up waiting, or died), so it could not know the alert arrived.
 */
export type ReceivedAlert = {
  headers: IncomingHttpHeaders
  raw: string
  body: unknown
  at: number
  answerLost: boolean
}

export type AlertEndpoint = {
  url: string
  received: ReceivedAlert[]
  /** The statuses of the next answers, first to last; 200 once they are used up. */
  answerWith(...statuses: number[]): void
  close(): Promise<void>
}

/** A Slack-compatible (or any JSON webhook) endpoint on 127.0.0.1 that keeps every accepted POST. */
export async function startAlertEndpoint(): Promise<AlertEndpoint> {
  const received: ReceivedAlert[] = []
  const answers: number[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const status = answers.shift() ?? 200
      const raw = Buffer.concat(chunks).toString('utf8')
      if (status >= 200 && status < 300) {
        const alert = { headers: req.headers, raw, body: JSON.parse(raw), at: Date.now(), answerLost: false }
        received.push(alert)
        res.on('close', () => {
          if (!res.writableFinished) alert.answerLost = true
        })
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no_service')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/secret-token`,
    received,
    answerWith: (...statuses) => answers.push(...statuses),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
