import { isUtf8 } from 'node:buffer'

/** What `Response#text()` decodes a body with: UTF-8, a leading BOM dropped, malformed bytes replaced. */
const utf8 = new TextDecoder()

/** A body's text as `Response#text()` reads it. */
export function bodyText(bytes: Buffer): string {
  return utf8.decode(bytes)
}

/** Bytes from 0x80 up; in valid UTF-8 a run of them is whole characters (ASCII cannot sit inside one). */
const NON_ASCII_RUN = /[\x80-\xff]+/g
const BACKSLASH = 0x5c

/**
 * A text that `JSON.parse` reads exactly as it reads `bodyText(bytes)` (the same value, or a syntax error both),
 * made for less CPU: the bytes as Latin-1 (a copy), each non-ASCII character as a `\uXXXX` escape. A text holding
 * one character above U+00FF is stored at two bytes a character, so decoding a body whose every event carries a
 * `••` makes the whole ~380 KB page two-byte (docs/performance.md, "Issue 29, eighth pass"); this stays one-byte.
 *
 * Taken only where the equivalence is plain; otherwise it is `bodyText(bytes)`: bytes that are not valid UTF-8
 * (decoding replaces them), a BOM (decoding drops it), and a non-ASCII run after a backslash (`\•` is no escape,
 * `\\u2022` is one).
 */
export function jsonText(bytes: Buffer): string {
  if (hasBom(bytes) || !isUtf8(bytes)) return bodyText(bytes)
  let plain = true
  const text = bytes
    .toString('latin1')
    .replace(NON_ASCII_RUN, (run: string, at: number, latin1: string): string => {
      if (at > 0 && latin1.charCodeAt(at - 1) === BACKSLASH) plain = false
      return escapeUtf16(Buffer.from(run, 'latin1').toString('utf8'))
    })
  return plain ? text : bodyText(bytes)
}

function hasBom(bytes: Buffer): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
}

/** Every UTF-16 unit as a JSON `\uXXXX` escape (a pair for a character beyond the BMP, as JSON.parse joins them). */
function escapeUtf16(text: string): string {
  let escaped = ''
  for (let i = 0; i < text.length; i++) escaped += `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`
  return escaped
}
