import { describe, expect, it } from 'vitest'
import {
  connectionReadDue,
  noteProved,
  noteStatusRead,
  proofDue,
  startRefreshClocks,
  type RefreshPacing,
} from './refresh-pacing.js'

const START = 1_000_000

describe('the re-read clocks of one locked loop', () => {
  it('reads the connection after the first run, then at most once a second while runs keep coming', () => {
    const clocks = startRefreshClocks(START)
    expect(connectionReadDue(clocks, false, START)).toBe(true)
    clocks.connectionReadAt = START
    expect(connectionReadDue(clocks, false, START + 999)).toBe(false)
    expect(connectionReadDue(clocks, false, START + 1_000)).toBe(true)
  })

  it('proves 5 s after the loop started or last proved while runs keep coming', () => {
    const clocks = startRefreshClocks(START)
    expect(proofDue(clocks, false, START + 4_999)).toBe(false)
    expect(proofDue(clocks, false, START + 5_000)).toBe(true)
    noteProved(clocks, START + 5_000)
    expect(proofDue(clocks, false, START + 9_999)).toBe(false)
  })

  it('re-reads both at once when caught up, however recent the last', () => {
    const clocks = startRefreshClocks(START)
    clocks.connectionReadAt = START
    expect(connectionReadDue(clocks, true, START)).toBe(true)
    expect(proofDue(clocks, true, START)).toBe(true)
  })

  it("counts a loop's status read from its process's last one, not from the loop's start", () => {
    const pacing: RefreshPacing = {
      everyMs: 1_000,
      statusReadAt: new Map(),
      owe: async () => undefined,
    }
    // A process that never read it reads it in its first loop that is not caught up.
    expect(connectionReadDue(startRefreshClocks(START), false, START)).toBe(true)
    noteStatusRead(startRefreshClocks(START), pacing, 'conn_1', START)
    // A later loop of the same process, within the second: not yet; a second after the read: due.
    const next = startRefreshClocks(START + 400, pacing.statusReadAt.get('conn_1'))
    expect(connectionReadDue(next, false, START + 400)).toBe(false)
    expect(connectionReadDue(next, false, START + 1_000)).toBe(true)
  })
})
