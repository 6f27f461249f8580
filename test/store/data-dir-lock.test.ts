import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { claimDataDir, waitForPublished } from '../../src/store/index.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bankrec-lock-'))
  dirs.push(dir)
  return dir
}

const lockOf = async (dir: string) =>
  JSON.parse(await readFile(path.join(dir, 'bankrec.lock'), 'utf8')) as Record<string, unknown>

/** The PID of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout)
}

describe('the data directory lock', () => {
  it('names its holder, reports it to the next claimant, publishes its PostgreSQL and goes on release', async () => {
    const dir = await freshDir()
    const claim = await claimDataDir(dir, 'bankrec start')
    expect(claim.held).toBe(false)
    expect(await lockOf(dir)).toMatchObject({ pid: process.pid, command: 'bankrec start' })

    const next = await claimDataDir(dir, 'bankrec report')
    expect(next).toMatchObject({ held: true, holder: { pid: process.pid, command: 'bankrec start' } })

    if (claim.held) throw new Error('unreachable')
    await claim.publish('postgres://postgres@localhost/bankrec?host=%2Ftmp%2Fx')
    expect((await waitForPublished(path.join(dir, 'bankrec.lock'), 1000))?.connectionString).toBe(
      'postgres://postgres@localhost/bankrec?host=%2Ftmp%2Fx',
    )
    await claim.release()
    expect(existsSync(path.join(dir, 'bankrec.lock'))).toBe(false)
  })

  it('takes over the lock of a process that is gone (killed, crashed)', async () => {
    const dir = await freshDir()
    const gone = deadPid()
    expect(gone).toBeGreaterThan(0)
    await writeFile(path.join(dir, 'bankrec.lock'), JSON.stringify({ pid: gone, command: 'bankrec start' }))
    const claim = await claimDataDir(dir, 'bankrec start')
    expect(claim.held).toBe(false)
    expect((await lockOf(dir)).pid).toBe(process.pid)
  })

  it.runIf(existsSync('/proc/self/stat'))(
    'takes over the lock of a PID now used by another process (its start time differs)',
    async () => {
      const dir = await freshDir()
      await writeFile(
        path.join(dir, 'bankrec.lock'),
        JSON.stringify({ pid: process.pid, command: 'bankrec start', processStart: '1' }),
      )
      expect((await claimDataDir(dir, 'bankrec start')).held).toBe(false)
    },
  )

  it('treats an unreadable lock as stale, never as held', async () => {
    const dir = await freshDir()
    await writeFile(path.join(dir, 'bankrec.lock'), 'not json')
    expect((await claimDataDir(dir, 'bankrec start')).held).toBe(false)
  })
})
