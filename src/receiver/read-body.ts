import type { IncomingMessage } from 'node:http'

/** Why a body was not read: over the limit, already consumed by another parser, or cut short. */
export type UnreadBody = 'too_large' | 'not_readable' | 'incomplete'

/**
 * Reads a request body into one Buffer, at most `limit` bytes: a plain chunk loop (no decoding, the signature
 * covers the bytes). A declared Content-Length over the limit is refused before a byte is read; a body that
 * grows past it is refused at the chunk that crosses it and the stream paused (the answer closes the connection).
 * A body that ends short of its declared length, or whose connection fails, is `incomplete`.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | UnreadBody> {
  if (!req.readable) return Promise.resolve('not_readable')
  const header = req.headers['content-length']
  const declared = header === undefined ? undefined : Number.parseInt(header, 10)
  if (declared !== undefined && declared > limit) {
    req.pause()
    return Promise.resolve('too_large')
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let received = 0
    const settle = (result: Buffer | UnreadBody) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onFailure)
      req.off('aborted', onFailure)
      req.off('close', onFailure)
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) {
        req.pause()
        settle('too_large')
      } else chunks.push(chunk)
    }
    const onEnd = () => {
      if (declared !== undefined && received !== declared) settle('incomplete')
      else settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received))
    }
    const onFailure = () => settle('incomplete')
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onFailure)
    req.on('aborted', onFailure)
    req.on('close', onFailure)
  })
}
