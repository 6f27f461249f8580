import type { IncomingMessage } from 'node:http'

/** Why a body was not read: over the limit, already consumed by another parser, or cut short. */
export type UnreadBody = 'too_large' | 'not_readable' | 'incomplete'

/** One body being read: its state and steps as methods, so a request costs no named closures. */
class BodyRead {
  private readonly chunks: Buffer[] = []
  private received = 0
  private settled = false

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly declared: number | undefined,
    private readonly resolve: (result: Buffer | UnreadBody) => void,
  ) {}

  data(chunk: Buffer): void {
    if (this.settled) return
    this.received += chunk.length
    if (this.received > this.limit) {
      this.req.pause()
      this.settle('too_large')
    } else this.chunks.push(chunk)
  }

  end(): void {
    const { chunks, received, declared } = this
    if (declared !== undefined && received !== declared) this.settle('incomplete')
    else this.settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received))
  }

  settle(result: Buffer | UnreadBody): void {
    if (this.settled) return
    this.settled = true
    this.resolve(result)
  }
}

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
    const read = new BodyRead(req, limit, declared, resolve)
    // The request is this delivery's alone: its listeners go with it, so a settled read only stops listening.
    req.on('data', (chunk: Buffer) => read.data(chunk))
    req.on('end', () => read.end())
    // An aborted request emits 'close' (after 'aborted', and 'error' when listened to) before any 'end'.
    req.on('error', () => read.settle('incomplete'))
    req.on('close', () => read.settle('incomplete'))
  })
}
