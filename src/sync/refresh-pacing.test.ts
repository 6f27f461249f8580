import { describe, expect, it } from 'vitest'
import { silentLogger } from '../observability/index.js'
import { refreshJobId, refreshJobSlot } from '../queue/index.js'
import {
  noteReadTimes,
  readsAfterCaughtUp,
  readsOwed,
  readsWhileRunsCome,
  startRefreshClocks,
  type RefreshPacing,
} from './refresh-pacing.js'
import type { ConnectionSyncResult } from './sync-connection.js'

const START = 1_000_000

describe('the reads of one locked loop while runs keep coming', () => {
  it('reads the connection after the first run, then at most once a second', () => {
    const clocks = startRefreshClocks(START)
    expect(readsWhileRunsCome(clocks, START).status).toBe(true)
    clocks.connectionReadAt = START
    expect(readsWhileRunsCome(clocks, START + 999).status).toBe(false)
    expect(readsWhileRunsCome(clocks, START + 1_000).status).toBe(true)
  })

  it('proves 5 s after the loop started or last proved', () => {
    const clocks = startRefreshClocks(START)
    expect(readsWhileRunsCome(clocks, START + 4_999).proof).toBe(false)
    expect(readsWhileRunsCome(clocks, START + 5_000).proof).toBe(true)
    clocks.provedAt = START + 5_000
    expect(readsWhileRunsCome(clocks, START + 9_999).proof).toBe(false)
  })

  it("counts the status's second from the last read by any process, not from the loop's start", () => {
    const clocks = startRefreshClocks(START + 400)
    noteReadTimes(clocks, { statusReadAt: new Date(START), refreshedAt: null })
    expect(readsWhileRunsCome(clocks, START + 400).status).toBe(false)
    expect(readsWhileRunsCome(clocks, START + 1_000).status).toBe(true)
    // An older read elsewhere never moves the loop's own clock back.
    clocks.connectionReadAt = START + 900
    noteReadTimes(clocks, { statusReadAt: new Date(START), refreshedAt: null })
    expect(clocks.connectionReadAt).toBe(START + 900)
  })
})

describe('the reads after a caught-up run', () => {
  const run: ConnectionSyncResult = {
    bootstrapped: false,
    pagesApplied: 1,
    upserted: 1,
    deleted: 0,
    quarantined: 0,
    quarantineSettled: 0,
    earliestPostedDate: '2026-12-07',
  }
  const pacedAt = (nowMs: number, owe: RefreshPacing['owe'] = async () => undefined) => {
    const owed: number[] = []
    const pacing: RefreshPacing = {
      everyMs: 1_000,
      owe: async (id, dueAtMs) => {
        await owe(id, dueAtMs)
        owed.push(dueAtMs)
      },
    }
    const deps = { refreshPacing: pacing, clock: { now: () => new Date(nowMs) }, logger: silentLogger }
    return { deps, owed }
  }
  const last = (statusAgoMs: number, proofAgoMs: number) => ({
    statusReadAt: new Date(START - statusAgoMs),
    refreshedAt: new Date(START - proofAgoMs),
  })

  it('reads all of it when not paced, after a bootstrap, or when none was ever read', async () => {
    const { deps } = pacedAt(START)
    const all = { status: true, proof: true }
    expect(await readsAfterCaughtUp({ ...deps, refreshPacing: undefined }, 'c', run, last(0, 0))).toEqual(all)
    const off = { ...deps, refreshPacing: { ...deps.refreshPacing, everyMs: 0 } }
    expect(await readsAfterCaughtUp(off, 'c', run, last(0, 0))).toEqual(all)
    expect(await readsAfterCaughtUp(deps, 'c', { ...run, bootstrapped: true }, last(0, 0))).toEqual(all)
    const never = { statusReadAt: null, refreshedAt: null }
    expect(await readsAfterCaughtUp(deps, 'c', run, never)).toEqual(all)
  })

  it('reads all of it once the last proof is 5 s old', async () => {
    const { deps, owed } = pacedAt(START)
    expect(await readsAfterCaughtUp(deps, 'c', run, last(0, 5_000))).toEqual({ status: true, proof: true })
    expect(owed).toEqual([])
  })

  it('reads the status alone a second after its last read, and owes the rest to when the proof is due', async () => {
    const { deps, owed } = pacedAt(START)
    expect(await readsAfterCaughtUp(deps, 'c', run, last(1_000, 2_000))).toEqual({
      status: true,
      proof: false,
    })
    expect(owed).toEqual([START + 3_000])
  })

  it('reads nothing within a second of the last status read, and owes all of it', async () => {
    const { deps, owed } = pacedAt(START)
    expect(await readsAfterCaughtUp(deps, 'c', run, last(999, 999))).toEqual({ status: false, proof: false })
    expect(owed).toEqual([START + 4_001])
  })

  it('reads all of it at once when the read cannot be owed', async () => {
    const { deps } = pacedAt(START, async () => {
      throw new Error('queue unreachable')
    })
    expect(await readsAfterCaughtUp(deps, 'c', run, last(0, 0))).toEqual({ status: true, proof: true })
  })
})

describe('the reads of an owed job', () => {
  const run: ConnectionSyncResult = {
    bootstrapped: false,
    pagesApplied: 0,
    upserted: 0,
    deleted: 0,
    quarantined: 0,
    quarantineSettled: 0,
    earliestPostedDate: null,
  }
  const pacing: RefreshPacing = { everyMs: 1_000, owe: async () => undefined }
  // Owed after a read at START + 300: due 5 s later, in the slot that ends at START + 6_000.
  const slot = refreshJobSlot(
    refreshJobId('7f3e0c1a-5b2d-4e8f-9a6b-0c1d2e3f4a5b', Math.ceil((START + 5_300) / 1_000)),
  )!
  const readAt = (ms: number) => ({ statusReadAt: new Date(ms), refreshedAt: new Date(ms) })

  it('finds its slot in its id, and none in any other', () => {
    expect(slot).toBe(START / 1_000 + 6)
    expect(refreshJobSlot('sync-7f3e0c1a-5b2d-4e8f-9a6b-0c1d2e3f4a5b')).toBeNull()
  })

  it('reads all of it when the last read is the one it was owed after, however recent by the clock', () => {
    expect(readsOwed(pacing, { slot }, run, readAt(START + 300))).toEqual({ status: true, proof: true })
    expect(readsOwed(pacing, { slot: null }, run, readAt(START + 9_000))).toEqual({
      status: true,
      proof: true,
    })
  })

  it('reads nothing when a full read came after that one', () => {
    expect(readsOwed(pacing, { slot }, run, readAt(START + 5_400))).toEqual({ status: false, proof: false })
  })

  it('reads as any caught-up run does when a full read came after but its own runs changed something', () => {
    expect(readsOwed(pacing, { slot }, { ...run, upserted: 1 }, readAt(START + 5_400))).toBeNull()
    expect(readsOwed(pacing, { slot }, { ...run, bootstrapped: true }, readAt(START + 5_400))).toBeNull()
  })
})
