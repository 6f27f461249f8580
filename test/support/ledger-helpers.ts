import { expect } from 'vitest'
import type { SandboxHarness } from './sandbox-harness.js'

/** Creates a transaction through the control API, as if the bank reported it; returns its API shape. */
export async function bankReports(
  harness: SandboxHarness,
  connectionId: string,
  body: Record<string, unknown>,
): Promise<any> {
  const response = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
    key: null,
    body,
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body
}

/** Every page of GET /v1/transactions for a query, following nextCursor. */
export async function listAll(harness: SandboxHarness, query: string, key?: string): Promise<any[]> {
  const items: any[] = []
  let cursor: string | null = null
  do {
    const path: string = `/v1/transactions?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const response = await harness.request('GET', path, { key })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    items.push(...response.body.data)
    cursor = response.body.pagination.nextCursor
    expect(cursor !== null).toBe(response.body.pagination.hasMore)
  } while (cursor)
  return items
}

/** One GET /v1/transactions/sync call. */
export async function sync(harness: SandboxHarness, query: string, key?: string) {
  return harness.request('GET', `/v1/transactions/sync?${query}`, { key })
}

/**
 * Polls sync from a cursor the way the seed tells a client to (rules 5–7): apply the page, move on, call again
 * at once while hasMore. Returns the last nextCursor and every event seen.
 */
export async function drain(
  harness: SandboxHarness,
  cursor: string,
  mirror: Map<string, any>,
  extraQuery = '',
  key?: string,
): Promise<{ cursor: string; events: any[] }> {
  const events: any[] = []
  for (;;) {
    const response = await sync(harness, `cursor=${encodeURIComponent(cursor)}${extraQuery}`, key)
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    for (const event of response.body.events) {
      if (event.type === 'removed') mirror.delete(event.transaction.id)
      else mirror.set(event.transaction.id, event.transaction)
    }
    events.push(...response.body.events)
    cursor = response.body.nextCursor
    if (!response.body.hasMore) return { cursor, events }
  }
}

/** The stream head: the first sync call, without a cursor. */
export async function streamHead(harness: SandboxHarness, query = '', key?: string): Promise<string> {
  const response = await sync(harness, query, key)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.nextCursor
}
