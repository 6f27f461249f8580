import { describe, expect, it } from 'vitest'
import { readAhead } from './read-ahead.js'

type Page = { nextCursor: string; hasMore: boolean; n: number }

/** A stream of `count` pages whose reads the test answers one by one. */
function stream(count: number) {
  const reads: Array<{ cursor: string; answer(): void; fail(error: Error): void }> = []
  const read = (cursor: string) =>
    new Promise<Page>((resolve, reject) => {
      const n = Number(cursor)
      reads.push({
        cursor,
        answer: () => resolve({ n, nextCursor: String(n + 1), hasMore: n + 1 < count }),
        fail: reject,
      })
    })
  return { reads, read }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('readAhead', () => {
  it('requests each page as soon as the one before it arrived, at most `depth` not yet taken', async () => {
    const { reads, read } = stream(5)
    const pages = readAhead(read, (page) => page.n, '0', 2)
    expect(reads.map((r) => r.cursor)).toEqual(['0'])
    reads[0]!.answer()
    await settle()
    expect(reads.map((r) => r.cursor)).toEqual(['0', '1'])
    reads[1]!.answer()
    await settle()
    // Two read and not taken: the third waits for room.
    expect(reads.map((r) => r.cursor)).toEqual(['0', '1'])
    expect(await pages.take()).toBe(0)
    expect(reads.map((r) => r.cursor)).toEqual(['0', '1', '2'])
    expect(await pages.take()).toBe(1)
    reads[2]!.answer()
    expect(await pages.take()).toBe(2)
    await settle()
    reads[3]!.answer()
    expect(await pages.take()).toBe(3)
    await settle()
    reads[4]!.answer()
    expect(await pages.take()).toBe(4)
    await settle()
    // The last page has no more: nothing is requested after it.
    expect(reads).toHaveLength(5)
  })

  it('gives a failed read to the writer in stream order and requests nothing after it', async () => {
    const { reads, read } = stream(5)
    const pages = readAhead(read, (page) => page.n, '0', 1)
    reads[0]!.answer()
    expect(await pages.take()).toBe(0)
    reads[1]!.fail(new Error('cursor expired'))
    await settle()
    await expect(pages.take()).rejects.toThrow('cursor expired')
    expect(reads).toHaveLength(2)
  })

  it('requests nothing more once stopped', async () => {
    const { reads, read } = stream(5)
    const pages = readAhead(read, (page) => page.n, '0', 1)
    pages.stop()
    reads[0]!.answer()
    await settle()
    expect(reads).toHaveLength(1)
  })
})
