import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Transaction, Transfer } from '../../src/api-client/index.js'
import {
  connectTransferPair,
  startClientHarness,
  type ClientHarness,
  type TransferPair,
} from './client-harness.js'

/**
 * The fault run: with ~30% of calls failing (5xx before or after the effect, dropped connections, 429
 * with Retry-After), 200 transfer creations make exactly 200 transfers and a full transactions sync rebuilds
 * exactly the sandbox's state. Waits are recorded, never slept.
 */
const FAULTS = { api: { errorRate: 0.2, rateLimitRate: 0.1, retryAfterSeconds: 1 } }
const TRANSFERS = 200

let h: ClientHarness
let ready: TransferPair

beforeAll(async () => {
  h = await startClientHarness({ sandbox: { scheduledSyncIntervalSeconds: 0 }, client: { maxRetries: 12 } })
  ready = await connectTransferPair(h.harness)
})
afterAll(() => h.close())

async function setFaults(body: unknown) {
  const answer = await h.harness.request('PUT', '/_sandbox/faults', { body })
  expect(answer.status).toBe(200)
}

async function sandboxState(): Promise<{ transactions: Transaction[]; transfers: Transfer[] }> {
  const answer = await h.harness.request('GET', `/_sandbox/state?connectionId=${ready.connection.id}`)
  expect(answer.status).toBe(200)
  return answer.body
}

describe('under 30% injected faults', () => {
  let streamHead: string
  const mirror = new Map<string, Transaction>()

  beforeAll(async () => {
    // Seed rule 5, no-gap bootstrap: save the stream head, then backfill by listing.
    streamHead = (await h.client.transactions.sync({ connectionId: ready.connection.id })).nextCursor
    for await (const transaction of h.client.transactions.listAll({
      connectionId: ready.connection.id,
      limit: 50,
    })) {
      mirror.set(transaction.id, transaction)
    }
  })

  it('200 transfers.create calls make exactly 200 transfers', async () => {
    await setFaults(FAULTS)
    const attemptsBefore = h.requests.length
    const { source, destination } = ready
    const created: Transfer[] = []
    for (let i = 0; i < TRANSFERS; i++) {
      created.push(
        await h.client.transfers.create({
          type: 'internal',
          transferType: 'internal',
          amount: { type: 'money', value: '1.25', currency: source.currency },
          sourceAccountId: source.id,
          destination: { type: 'account', accountId: destination.id },
          clientReference: `RUN-${i}`,
          skipPreflight: true,
        }),
      )
    }
    await setFaults({})

    const attempts = h.requests.length - attemptsBefore
    // The faults really fired: a clean run would take exactly one attempt per call.
    expect(attempts).toBeGreaterThan(TRANSFERS * 1.2)
    expect(h.responses.some((r) => r.status === 429)).toBe(true)
    expect(h.responses.some((r) => r.status >= 500)).toBe(true)

    expect(new Set(created.map((t) => t.id)).size).toBe(TRANSFERS)
    const { transfers } = await sandboxState()
    expect(transfers).toHaveLength(TRANSFERS)
    expect(new Set(transfers.map((t) => t.id))).toEqual(new Set(created.map((t) => t.id)))
    expect(transfers.map((t) => t.clientReference).sort()).toEqual(
      created.map((t) => t.clientReference).sort(),
    )
  })

  it('a full transactions sync through syncPages yields exactly the sandbox state', async () => {
    // Let the transfers complete (each posts two transactions), and change some history as a bank does.
    await h.harness.sandbox.advance(120)
    const before = await sandboxState()
    const [edited, removed] = before.transactions
    await h.harness.request('PATCH', `/_sandbox/transactions/${edited!.id}`, {
      body: { description: 'Edited' },
    })
    await h.harness.request('DELETE', `/_sandbox/transactions/${removed!.id}`)

    await setFaults(FAULTS)
    let pages = 0
    for await (const page of h.client.transactions.syncPages({
      cursor: streamHead,
      connectionId: ready.connection.id,
      limit: 37,
    })) {
      for (const event of page.events) {
        if (event.type === 'removed') mirror.delete(event.transaction.id)
        else mirror.set(event.transaction.id, event.transaction)
      }
      pages++
    }
    await setFaults({})

    const truth = await sandboxState()
    expect(truth.transactions.length).toBeGreaterThanOrEqual(TRANSFERS * 2)
    expect(pages).toBeGreaterThan(1)
    const byId = (list: Iterable<Transaction>) => [...list].sort((a, b) => a.id.localeCompare(b.id))
    expect(byId(mirror.values())).toEqual(byId(truth.transactions))
  })
})
