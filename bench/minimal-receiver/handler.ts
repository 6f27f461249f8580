import type { IncomingMessage, ServerResponse } from 'node:http'
import type { DurableInbox } from './durable-inbox.js'
import { createMinimalVerifier } from './verify.js'

export const BODY_LIMIT_BYTES = 256 * 1024

/**
 * What a webhook needs once the raw body is read: signature, JSON, an event id, a durable write, then a 2xx
 * without a body (202 queued, 200 duplicate). Every refusal is a bare 4xx; a failed write is 503 so the sender
 * retries. Shared by the minimal node:http receiver and the bare express route.
 */
export function createMinimalDelivery(secret: string, inbox: DurableInbox) {
  const verify = createMinimalVerifier(secret)
  return (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    if (!verify(req.headers['service-signature'], body)) return answer(res, 401)
    let id: unknown
    try {
      id = (JSON.parse(body.toString('utf8')) as { id?: unknown } | null)?.id
    } catch {
      return answer(res, 400)
    }
    if (typeof id !== 'string' || id.length === 0 || id.length > 200) return answer(res, 400)
    inbox.write(id, body).then(
      (result) => answer(res, result === 'queued' ? 202 : 200),
      () => answer(res, 503),
    )
  }
}

function answer(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 })
  res.end()
}

/** Reads the raw body up to the cap: a declared or actual size over it is 413 and the rest is not read. */
export function readCappedBody(
  req: IncomingMessage,
  res: ServerResponse,
  then: (body: Buffer) => void,
): void {
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) {
    res.writeHead(413, { 'content-length': 0, connection: 'close' })
    res.end()
    req.destroy()
    return
  }
  const chunks: Buffer[] = []
  let size = 0
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > BODY_LIMIT_BYTES) {
      res.writeHead(413, { 'content-length': 0, connection: 'close' })
      res.end()
      req.destroy()
      return
    }
    chunks.push(chunk)
  })
  req.on('end', () => then(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
}
