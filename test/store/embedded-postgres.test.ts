import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import {
  isPrivatelyOwned,
  isReachableByOthers,
  startEmbeddedPostgres,
} from '../../src/store/embedded-postgres.js'

const TSX = pathToFileURL(path.resolve(import.meta.dirname, '../../node_modules/tsx/dist/loader.mjs')).href
const EMBEDDED = path.resolve(import.meta.dirname, '../../src/store/embedded-postgres.ts')

/** Starts an embedded PostgreSQL in a child process, SIGKILLs the child once it is up; the server's address. */
function startInKilledProcess(dataDir: string): Promise<string> {
  const script = `
    const { startEmbeddedPostgres } = await import(${JSON.stringify(pathToFileURL(EMBEDDED).href)})
    const server = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} })
    console.log('up ' + server.connectionString)
  `
  const child = spawn(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /up (\S+)/.exec(out)
      if (!match) return
      child.once('exit', () => resolve(match[1]!))
      child.kill('SIGKILL')
    })
    child.once('error', reject)
  })
}

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

/** Where a postgres:// URL points: its ?host= (a socket directory) or its host name, and its port. */
function hostOf(connectionString: string): { host: string; port: string } {
  const url = new URL(connectionString)
  return {
    host: url.searchParams.get('host') ?? url.hostname,
    port: url.searchParams.get('port') ?? (url.port || '5432'),
  }
}

/**
 * Runs, as the OS user `nobody`, a PostgreSQL startup handshake (user postgres, no password) against the host and
 * port of `connectionString`, with node's core modules only: 'connected' when the server lets it in.
 */
function connectAsNobody(connectionString: string): string {
  const { host, port } = hostOf(connectionString)
  const target = host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port: Number(port) }
  const script = `
    const net = require('node:net')
    const params = Buffer.from('user\\0postgres\\0database\\0postgres\\0\\0')
    const head = Buffer.alloc(8); head.writeInt32BE(8 + params.length, 0); head.writeInt32BE(196608, 4)
    const socket = net.connect(${JSON.stringify(target)}, () => socket.write(Buffer.concat([head, params])))
    socket.on('data', (data) => {
      // 'R' with code 0 is AuthenticationOk: in without a password.
      console.log(data[0] === 82 && data.readInt32BE(5) === 0 ? 'connected' : 'refused by the server')
      socket.destroy()
    })
    socket.on('error', (error) => console.log('refused: ' + error.code))
  `
  const result = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', script], {
    encoding: 'utf8',
    cwd: '/',
  })
  return `${result.stdout}${result.stderr}`.trim()
}

const nobodyExists = (() => {
  try {
    execFileSync('id', ['nobody'], { stdio: 'ignore' })
    return process.getuid?.() === 0
  } catch {
    return false
  }
})()

describe('embedded PostgreSQL', () => {
  it('opens no TCP port, only a unix socket in a directory nobody else may enter', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-embedded-'))
    dirs.push(base)
    await chmod(base, 0o755)
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(base, 'pg') })
    try {
      expect(hostOf(embedded.connectionString).host).toBe(embedded.socketDir)
      expect(await query(embedded.connectionString, 'show listen_addresses')).toEqual([
        { listen_addresses: '' },
      ])
      const socketDir = statSync(embedded.socketDir)
      expect(socketDir.mode & 0o777).toBe(0o700)
      expect(statSync(embedded.dataDir).uid).toBe(socketDir.uid)
    } finally {
      await embedded.stop()
    }
    expect(statSync(embedded.socketDir, { throwIfNoEntry: false })).toBeUndefined()
  }, 120_000)

  it.runIf(nobodyExists)(
    'refuses another local OS user who tries its connection string',
    async () => {
      const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-embedded-'))
      dirs.push(base)
      await chmod(base, 0o755)
      const embedded = await startEmbeddedPostgres({ dataDir: path.join(base, 'pg') })
      try {
        const answer = connectAsNobody(embedded.connectionString)
        expect(answer).toMatch(/^refused/)
        expect(answer).not.toContain('connected')
      } finally {
        await embedded.stop()
      }
    },
    120_000,
  )

  it.runIf(nobodyExists)(
    'trusts a binary cache only when root owns it and its parents and nobody else may write',
    async () => {
      const base = await mkdtemp(path.join('/var/cache', 'bankrec-test-'))
      dirs.push(base)
      await chmod(base, 0o755)
      const cache = path.join(base, 'postgres-planted')
      await mkdir(cache, { mode: 0o755 })
      expect(isPrivatelyOwned(cache)).toBe(true)
      await chown(cache, 65534, 65534)
      expect(isPrivatelyOwned(cache)).toBe(false)
      await chown(cache, 0, 0)
      await chmod(cache, 0o777)
      expect(isPrivatelyOwned(cache)).toBe(false)
      // /tmp is writable by everyone: a cache there could have been planted by anyone.
      expect(isPrivatelyOwned(await mkdtemp(path.join(os.tmpdir(), 'bankrec-cache-')))).toBe(false)
    },
  )

  it('stops only once every client has closed: a client still working is not cut off (57P01)', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-embedded-'))
    dirs.push(base)
    await chmod(base, 0o755)
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(base, 'pg') })
    // No 'error' listener, like a pool's client between two queries: a cut connection would crash the process.
    const client = new pg.Client({ connectionString: embedded.connectionString })
    await client.connect()
    const stopping = embedded.stop()
    let stopped = false
    void stopping.then(() => (stopped = true))
    expect(await client.query('select pg_sleep(0.2), 1 as still_served')).toMatchObject({
      rows: [{ still_served: 1 }],
    })
    expect(stopped).toBe(false)
    await client.end()
    await stopping
    expect(statSync(embedded.socketDir, { throwIfNoEntry: false })).toBeUndefined()
  }, 120_000)

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
    // SIGKILLed once its server is up: the server runs detached and outlives it, an orphan.
    const orphanUrl = await startInKilledProcess(dataDir)
    await query(orphanUrl, "create table kept (v text); insert into kept values ('still here')")
    const next = await startEmbeddedPostgres({ dataDir })
    try {
      expect(await query(next.connectionString, 'select v from kept')).toEqual([{ v: 'still here' }])
    } finally {
      await next.stop()
    }
  }, 120_000)

  it('never stops a server whose owner is alive: a second start on its data is refused', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'bankrec-owned-'))
    dirs.push(base)
    await chmod(base, 0o755)
    const dataDir = path.join(base, 'pg')
    const owned = await startEmbeddedPostgres({ dataDir })
    try {
      await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
        new RegExp(`belongs to a running process \\(pid ${process.pid}\\)`),
      )
      expect(await query(owned.connectionString, 'select 1 as still_up')).toEqual([{ still_up: 1 }])
    } finally {
      await owned.stop()
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
