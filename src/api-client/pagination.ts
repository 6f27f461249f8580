import type { ListResponse } from './common.js'
import { ResponseValidationError } from './errors.js'
import type { CallOptions } from './http.js'

export type PageFetcher<P, T> = (params: P, options?: CallOptions) => Promise<ListResponse<T>>

/**
 * Every page of a cursor-paginated list, starting at `params.cursor` (or the first page), following nextCursor
 * until hasMore is false. The same filters go with every page: a list cursor is valid only for its query.
 */
export async function* listPages<P extends { cursor?: string | null | undefined }, T>(
  fetchPage: PageFetcher<P, T>,
  params: P,
  options?: CallOptions,
): AsyncGenerator<ListResponse<T>, void, undefined> {
  let cursor = params.cursor
  for (;;) {
    const page = await fetchPage({ ...params, cursor }, options)
    yield page
    if (!page.pagination.hasMore) return
    if (!page.pagination.nextCursor) {
      throw new ResponseValidationError({
        message: 'The list answer says hasMore but carries no nextCursor.',
        requestId: page.meta.requestId,
        path: 'pagination.nextCursor',
      })
    }
    cursor = page.pagination.nextCursor
  }
}

/** Every item of a cursor-paginated list, fetching pages as the loop asks for them. */
export async function* listAll<P extends { cursor?: string | null | undefined }, T>(
  fetchPage: PageFetcher<P, T>,
  params: P,
  options?: CallOptions,
): AsyncGenerator<T, void, undefined> {
  for await (const page of listPages(fetchPage, params, options)) yield* page.data
}

export type SyncPage = { nextCursor: string; hasMore: boolean }

/**
 * Sync pages from `params.cursor` (none: the stream head) until hasMore is false (seed sync rule 5: while hasMore
 * is true, call again at once with the returned nextCursor). Persist a page's nextCursor only after applying it.
 */
export async function* syncPages<P extends { cursor?: string | undefined }, R extends SyncPage>(
  fetchSync: (params: P, options?: CallOptions) => Promise<R>,
  params: P,
  options?: CallOptions,
): AsyncGenerator<R, void, undefined> {
  let cursor = params.cursor
  for (;;) {
    const page = await fetchSync({ ...params, cursor }, options)
    yield page
    if (!page.hasMore) return
    cursor = page.nextCursor
  }
}
