import { isUtf8 } from 'node:buffer'

/** What `Response#text()` decodes a body with: UTF-8, a leading BOM dropped, malformed bytes replaced. */
const utf8 = new TextDecoder()

/** A body's text as `Response#text()` reads it. */
export function bodyText(bytes: Buffer): string {
  return utf8.decode(bytes)
}

const BACKSLASH = 0x5c

/**
 * A text that `JSON.parse` reads exactly as it reads `bodyText(bytes)` (the same value, or a syntax error both),
 * made for less CPU: ASCII bytes copied as they are (Latin-1), each run of non-ASCII bytes, which in valid UTF-8 is
 * whole characters (no ASCII byte sits inside one), as its characters' `\uXXXX` escapes. A text holding one
 * character above U+00FF is stored at two bytes a character, so decoding a body whose every event carries a `••`
 * makes the whole ~380 KB page two-byte (docs/performance.md, "Issue 29, eighth pass"); this stays one-byte.
 *
 * Taken only where the equivalence is plain; otherwise it is `bodyText(bytes)`: bytes that are not valid UTF-8
 * (decoding replaces them), a BOM (decoding drops it), and a non-ASCII run after a backslash (`\•` is no escape,
 * `\\u2022` is one).
 */
export function jsonText(bytes: Buffer): string {
  if (hasBom(bytes) || !isUtf8(bytes)) return bodyText(bytes)
  let text = ''
  let copied = 0
  for (let at = nextNonAscii(bytes, 0); at < bytes.length; at = nextNonAscii(bytes, at)) {
    if (at > 0 && bytes[at - 1] === BACKSLASH) return bodyText(bytes)
    let end = at + 1
    while (end < bytes.length && bytes[end]! >= 0x80) end++
    text += bytes.toString('latin1', copied, at) + escapeUtf16(bytes.toString('utf8', at, end))
    copied = end
    at = end
  }
  return text + bytes.toString('latin1', copied)
}

/** The index of the first byte from `from` on that is 0x80 or above (bytes.length if none), four bytes a step. */
function nextNonAscii(bytes: Buffer, from: number): number {
  let at = from
  while (at < bytes.length && (bytes.byteOffset + at) % 4 !== 0) {
    if (bytes[at]! >= 0x80) return at
    at++
  }
  if (at >= bytes.length) return bytes.length
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + at, (bytes.length - at) >>> 2)
  let word = 0
  while (word < words.length && (words[word]! & 0x80808080) === 0) word++
  for (at += word * 4; at < bytes.length; at++) if (bytes[at]! >= 0x80) return at
  return bytes.length
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
