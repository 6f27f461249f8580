import type { Request } from 'express'
import { Transform } from 'node:stream'
import { SidecarApiError } from '../api-error.js'

/**
 * A CSV request body as a stream, so an import never holds the whole file as one string: past `limitBytes`
 * (a chunked body has no Content-Length to refuse up front) it fails with 413, and at the first U+0000, which
 * PostgreSQL text cannot hold, with 400 naming the line. UTF-8 decoding never yields an unpaired surrogate.
 */
export function csvBodyStream(req: Request, limitBytes: number): NodeJS.ReadableStream {
  let bytes = 0
  let line = 1
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      if (bytes > limitBytes) {
        req.unpipe(guard)
        return done(
          new SidecarApiError(
            413,
            'payload_too_large',
            `The request body is larger than the ${limitBytes}-byte limit.`,
          ),
        )
      }
      const nul = chunk.indexOf(0)
      if (nul !== -1) {
        for (let at = chunk.indexOf(10); at !== -1 && at < nul; at = chunk.indexOf(10, at + 1)) line++
        const message = 'must not contain U+0000 or an unpaired surrogate'
        return done(
          new SidecarApiError(400, 'invalid_csv', `line ${line} ${message}; nothing was imported.`, [
            { path: `line.${line}`, message },
          ]),
        )
      }
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) line++
      done(null, chunk)
    },
  })
  req.on('error', (error) => guard.destroy(error))
  return req.pipe(guard)
}

/**
 * Reads the rest of a body stream without parsing it, so a client still uploading gets the early answer instead
 * of a cut connection; the byte limit still applies (an error ends the wait, and the connection is then closed).
 */
export function discardRest(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.once('end', resolve)
    stream.once('error', () => resolve())
    stream.resume()
  })
}
