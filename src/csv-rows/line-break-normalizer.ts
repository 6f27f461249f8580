import { Transform } from 'node:stream'

const CR = 0x0d
const LF = 0x0a
/** Bytes handed to the parser at a time (a couple of hundred rows). */
const PIECE_BYTES = 4 * 1024

/**
 * Turns CRLF into LF on the way to the CSV parser, and reports the bytes read. csv-parse counts a CRLF inside
 * a quoted field as two lines; with LF alone its line numbers are the lines an editor shows. CR and LF never
 * occur inside a multi-byte UTF-8 sequence, so working on bytes is safe. Output goes on in pieces of at most 4 KiB,
 * so the parser never holds the event loop for a whole file (issue 26).
 */
export function lineBreakNormalizer(onBytes?: (bytesRead: number) => void): Transform {
  let bytesRead = 0
  let pendingCr = false
  return new Transform({
    transform(chunk: Buffer | string, _encoding, callback) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
      bytesRead += bytes.length
      const out = Buffer.allocUnsafe(bytes.length + 1)
      let length = 0
      for (let index = 0; index < bytes.length; index++) {
        const byte = bytes[index] as number
        if (pendingCr) {
          pendingCr = false
          if (byte !== LF) out[length++] = CR
        }
        if (byte === CR) pendingCr = true
        else out[length++] = byte
      }
      onBytes?.(bytesRead)
      // In pieces: the parser reads a piece whole before anyone else runs, and a file arrives as one chunk.
      for (let start = 0; start < length; start += PIECE_BYTES) {
        this.push(out.subarray(start, Math.min(length, start + PIECE_BYTES)))
      }
      callback()
    },
    flush(callback) {
      callback(null, pendingCr ? Buffer.from([CR]) : null)
    },
  })
}
