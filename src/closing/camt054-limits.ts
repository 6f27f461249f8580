import { ClosingRequestError } from './closing-errors.js'

/**
 * What one camt.054 notification may hold (issue 26: a 9.5 MB, 800,000-attribute upload held the event loop for
 * 8.7 s). A bank's notification of a batch booking is a few KB per entry: a thousand payments with their
 * remittance fit in well under 1 MB, at about ten elements and one attribute (`Ccy`) per line.
 */
export const CAMT054_LIMITS = {
  /** Bytes of the document (UTF-8). */
  bytes: 1024 * 1024,
  /** Start tags (self-closing ones included). */
  elements: 50_000,
  /** Attributes over all start tags. */
  attributes: 20_000,
  /** Open elements at once (a camt.054 nests about 12 deep). */
  depth: 64,
  /** Milliseconds the parser may run before it is stopped. */
  parseMs: 5_000,
} as const

function tooComplex(message: string): ClosingRequestError {
  return new ClosingRequestError('invalid', 'camt054_too_complex', `body ${message}. Nothing was applied.`, [
    { path: 'body', message },
  ])
}

/** 400 `camt054_too_complex` when a document is over the byte cap (the CLI and the dashboard form). */
export function checkCamt054Size(xml: string): void {
  if (Buffer.byteLength(xml, 'utf8') > CAMT054_LIMITS.bytes) {
    throw tooComplex(
      `is larger than ${CAMT054_LIMITS.bytes} bytes, the limit for a camt.054 notification; split the batch`,
    )
  }
}

const LT = 60 // <
const GT = 62 // >
const SLASH = 47
const BANG = 33
const QUESTION = 63
const EQUALS = 61
const QUOTE = 34
const APOS = 39

/**
 * Counts start tags, attributes and nesting in one pass over the text, without building anything, and refuses a
 * document over a limit (400 `camt054_too_complex` naming it) before any parser sees it (in the parse worker). Comments, CDATA and
 * processing instructions are skipped whole; a `=` inside a quoted value is no attribute. Malformed markup is left
 * for the parser to name: the counts only have to bound its work.
 */
export function prescanCamt054(xml: string): void {
  let elements = 0
  let attributes = 0
  let depth = 0
  let at = xml.indexOf('<')
  while (at !== -1) {
    const next = xml.charCodeAt(at + 1)
    let end: number
    if (next === SLASH) {
      depth--
      end = xml.indexOf('>', at)
    } else if (next === BANG) {
      const closer = xml.startsWith('<!--', at) ? '-->' : xml.startsWith('<![CDATA[', at) ? ']]>' : '>'
      end = xml.indexOf(closer, at)
    } else if (next === QUESTION) {
      end = xml.indexOf('?>', at)
    } else {
      if (++elements > CAMT054_LIMITS.elements) {
        throw tooComplex(
          `has more than ${CAMT054_LIMITS.elements} elements, the limit for a camt.054 notification`,
        )
      }
      let quote = 0
      end = -1
      for (let i = at + 1; i < xml.length; i++) {
        const c = xml.charCodeAt(i)
        if (quote !== 0) {
          if (c === quote) quote = 0
        } else if (c === QUOTE || c === APOS) quote = c
        else if (c === EQUALS) attributes++
        else if (c === GT || c === LT) {
          end = i
          break
        }
      }
      if (attributes > CAMT054_LIMITS.attributes) {
        throw tooComplex(
          `has more than ${CAMT054_LIMITS.attributes} attributes, the limit for a camt.054 notification`,
        )
      }
      if (end !== -1 && xml.charCodeAt(end - 1) !== SLASH && ++depth > CAMT054_LIMITS.depth) {
        throw tooComplex(
          `nests elements more than ${CAMT054_LIMITS.depth} deep, the limit for a camt.054 notification`,
        )
      }
    }
    if (end === -1) return
    // A start tag cut short by the next `<` is the parser's to name; that `<` is counted in its own right.
    at = xml.indexOf('<', xml.charCodeAt(end) === LT ? end : end + 1)
  }
}
