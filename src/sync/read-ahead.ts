/** A page of a cursor stream: where the next one starts and whether there is one. */
export type StreamPage = { nextCursor: string; hasMore: boolean }

export type ReadAhead<R> = {
  /** The next page in stream order, prepared; rejects with its read's error (after the pages before it). */
  take(): Promise<R>
  /** No more requests: the reader gave up on the stream (pages in flight are dropped). */
  stop(): void
}

/**
 * Reads a cursor stream ahead of its writer: each page is requested as soon as the one before it arrived, and
 * prepared on arrival, so neither the bank's answer nor the preparing waits for the write of earlier pages.
 * At most `depth` pages are requested and not yet taken (memory stays bounded). Reading persists nothing: the
 * writer still takes the pages one by one in stream order, and what it did not take is dropped with the run.
 */
export function readAhead<P extends StreamPage, R>(
  read: (cursor: string) => Promise<P>,
  prepare: (page: P) => R,
  first: string,
  depth: number,
): ReadAhead<R> {
  const requested: Array<Promise<R>> = []
  // The cursor of the page to request once there is room; null while the last requested page is in flight.
  let following: string | null = first
  let stopped = false
  const pump = () => {
    if (stopped || following === null || requested.length >= depth) return
    const cursor = following
    following = null
    const answer = read(cursor).then((page) => {
      // The next request goes out before this page is prepared.
      if (page.hasMore) following = page.nextCursor
      pump()
      return prepare(page)
    })
    // Taken (and awaited) in stream order; until then a failure must not count as unhandled.
    answer.catch(() => undefined)
    requested.push(answer)
  }
  pump()
  return {
    take() {
      const next = requested.shift()
      if (!next) throw new Error('readAhead: no page requested (take after the last page?)')
      pump()
      return next
    },
    stop() {
      stopped = true
    },
  }
}
