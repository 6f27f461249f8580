import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { describe, expect, it } from 'vitest'
import { lineBreakNormalizer } from './line-break-normalizer.js'

async function normalize(chunks: string[]): Promise<string> {
  return text(Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(lineBreakNormalizer()))
}

describe('lineBreakNormalizer', () => {
  it('turns CRLF into LF and keeps lone CR and LF', async () => {
    expect(await normalize(['a\r\nb\nc\rd\r\n'])).toBe('a\nb\nc\rd\n')
  })

  it('joins a CRLF split across chunks, and keeps a CR that ends the input', async () => {
    expect(await normalize(['a\r', '\nb\r', 'c\r'])).toBe('a\nb\rc\r')
  })
})
