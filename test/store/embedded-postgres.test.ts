import { chmod, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { isReachableByOthers, startEmbeddedPostgres } from '../../src/store/embedded-postgres.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function query(connectionString: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

describe('embedded PostgreSQL', () => {
  it('keeps its data across a stop and a restart', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-embedded-'))
    dirs.push(base)
    await chmod(base, 0o755)
    const dataDir = path.join(base, 'pg')
    const first = await startEmbeddedPostgres({ dataDir })
    await query(first.connectionString, "create table kept (v text); insert into kept values ('survives')")
    await first.stop()
    const second = await startEmbeddedPostgres({ dataDir })
    try {
      expect(await query(second.connectionString, 'select v from kept')).toEqual([{ v: 'survives' }])
    } finally {
      await second.stop()
    }
  }, 120_000)

  it.runIf(process.getuid?.() === 0)(
    'as root, moves the data out of a directory the postgres user cannot enter',
    async () => {
      const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-private-'))
      dirs.push(base)
      const embedded = await startEmbeddedPostgres({ dataDir: path.join(base, 'pg') })
      try {
        expect(embedded.dataDir.startsWith('/var/lib/bankrec/')).toBe(true)
        expect(await query(embedded.connectionString, 'select 1 as one')).toEqual([{ one: 1 }])
      } finally {
        await embedded.stop()
        await rm(embedded.dataDir, { recursive: true, force: true })
      }
    },
    120_000,
  )

  it.runIf(process.getuid?.() === 0)(
    'as root, refuses an explicit data directory the postgres user cannot enter',
    async () => {
      const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-private-'))
      dirs.push(base)
      await expect(
        startEmbeddedPostgres({ dataDir: path.join(base, 'pg'), dataDirExplicit: true }),
      ).rejects.toThrow(/cannot enter/)
    },
  )

  it('takes over a data directory whose server was left running by a killed bankrec', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-orphan-'))
    dirs.push(base)
    await chmod(base, 0o755)
    const dataDir = path.join(base, 'pg')
    // Never stopped: as if the process that started it was SIGKILLed (the server runs detached).
    const orphan = await startEmbeddedPostgres({ dataDir })
    await query(orphan.connectionString, "create table kept (v text); insert into kept values ('still here')")
    const next = await startEmbeddedPostgres({ dataDir })
    try {
      expect(await query(next.connectionString, 'select v from kept')).toEqual([{ v: 'still here' }])
    } finally {
      await next.stop()
    }
  }, 120_000)

  it('tells whether the postgres user can reach a directory', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-private-'))
    dirs.push(base)
    // mkdtemp creates mode 700: nobody but the owner may enter it.
    expect(isReachableByOthers(path.join(base, 'inner', 'pg'))).toBe(false)
    expect(isReachableByOthers(path.join(os.tmpdir(), 'pg'))).toBe(true)
  })
})
