import type { Response } from 'express'

const NON_ASCII = /[^\0-\x7f]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Sends a JSON body's UTF-8 bytes from a one-byte string. V8 stores a string holding any character above U+00FF
 * at two bytes a character, JSON.stringify's output turns two-byte from the first such character on, and node's
 * UTF-8 encoder is slow on two-byte strings: a sync page shows a masked account (`••4321`) in every transaction, so
 * its whole ~380 KB body went that slow way.
 *
 * The body's strings are passed through `text` as it is built: a non-ASCII string becomes its UTF-8 bytes as
 * Latin-1 characters. JSON.stringify writes characters from U+0080 up as they are (the bytes of a multi-byte UTF-8
 * sequence are all ≥ 0x80, so no escape is added or lost), and the Latin-1 encoding of its result is byte for byte
 * the UTF-8 encoding of the plain body, which is what `res.json` sends (same headers too). A lone surrogate has no
 * UTF-8 form (JSON.stringify escapes it as `\udxxx`): then `packed` is false and the body must be built plainly.
 */
export class Latin1Packer {
  /** False once a string could not be packed. */
  packed = true

  /** Every string of the body that is not ASCII by construction (the bank's data) must go through here. */
  readonly text = <T>(value: T): T => {
    if (typeof value !== 'string' || !NON_ASCII.test(value)) return value
    if (LONE_SURROGATE.test(value)) {
      this.packed = false
      return value
    }
    return Buffer.from(value, 'utf8').toString('latin1') as T
  }
}

/** `text` for a body sent plainly. */
export const plainText = <T>(value: T): T => value

/** What `res.json(body)` sends, for a body whose every non-ASCII string went through a packer that stayed packed. */
export function sendPackedJson(res: Response, body: unknown): void {
  res.set('Content-Type', 'application/json; charset=utf-8')
  res.send(Buffer.from(JSON.stringify(body), 'latin1'))
}
