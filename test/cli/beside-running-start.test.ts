import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const TSX = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href
const MAIN = path.join(root, 'src/cli/main.ts')
/** A whole zero-config `bankrec start` plus the commands beside it, on a busy 2-core machine. */
const TIMEOUT_MS = 240_000

let directory: string
let start: ChildProcessWithoutNullStreams
let startOut = ''
let startErr = ''
let url: string
let token: string

/** The environment of a zero-config run in `directory`: nothing of this machine's own configuration. */
function zeroConfigEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn' }
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|REDIS_URL|BANK_API_|BANKREC_|KIT_API_TOKEN)/.test(name)) delete env[name]
  }
  return env
}

function bankrec(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: directory,
    env: zeroConfigEnv(),
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

async function get(pathname: string, bearer?: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}${pathname}`, {
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  })
  return { status: response.status, body: await response.text() }
}

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'bankrec-beside-'))
  // As root the embedded PostgreSQL runs as the postgres user, which must be able to enter the directory.
  await chmod(directory, 0o755)
  start = spawn(process.execPath, ['--import', TSX, MAIN, 'start', '--no-demo'], {
    cwd: directory,
    env: zeroConfigEnv(),
  })
  start.stderr.on('data', (chunk) => (startErr += chunk))
  const announced = await new Promise<RegExpExecArray>((resolve, reject) => {
    start.stdout.on('data', (chunk) => {
      startOut += chunk
      const match = /listening on (http:\S+)\n[\s\S]*API token: (\S+)\n/.exec(startOut)
      if (match) resolve(match)
    })
    start.once('exit', (code) => reject(new Error(`bankrec start exited ${code}: ${startErr}`)))
  })
  url = announced[1]!
  token = announced[2]!
}, TIMEOUT_MS)

afterAll(async () => {
  if (start.exitCode === null) {
    const exited = new Promise((resolve) => start.once('exit', resolve))
    start.kill('SIGTERM')
    await exited
  }
  await rm(directory, { recursive: true, force: true })
})

describe('CLI commands beside a running zero-config bankrec start', () => {
  it(
    'holds the data directory with a lock naming its PID',
    async () => {
      const lock = JSON.parse(await readFile(path.join(directory, '.bankrec', 'bankrec.lock'), 'utf8')) as {
        pid: number
        connectionString: string
      }
      expect(lock.pid).toBe(start.pid)
      expect(lock.connectionString).toMatch(/^postgres:\/\//)
    },
    TIMEOUT_MS,
  )

  it(
    "runs commands on the running instance's database, and the start keeps answering",
    async () => {
      const report = await bankrec(['report', '--format', 'json'])
      expect(report.stderr).toBe('')
      expect(report.code).toBe(0)
      expect(JSON.parse(report.stdout)).toHaveProperty('matchRate')

      // Written by a command, read through the running start: one database, not a second PostgreSQL.
      const imported = await bankrec(['invoices', 'import', path.join(root, 'fixtures/invoices/demo.csv')])
      expect(imported.code, imported.stderr).toBe(0)
      const invoices = await get('/api/invoices?limit=100', token)
      expect(invoices.status).toBe(200)
      expect((JSON.parse(invoices.body) as { data: unknown[] }).data).toHaveLength(60)

      expect((await get('/readyz')).status).toBe(200)
      const dashboard = await get('/', token)
      expect(dashboard.status).toBe(200)
      expect(dashboard.body).toContain('<html')
      expect((await get('/api/exceptions', token)).status).toBe(200)
      expect(start.exitCode).toBeNull()
    },
    TIMEOUT_MS,
  )

  it(
    'refuses a second start on the same directory, naming the running one and what to do',
    async () => {
      const second = await bankrec(['start', '--no-demo'])
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`in use by bankrec`)
      expect(second.stderr).toContain(`pid ${start.pid}`)
      expect(second.stderr).toMatch(
        /Stop it first .* or wait for it to finish, or give this process a data directory of its own/,
      )
      expect((await get('/readyz')).status).toBe(200)
    },
    TIMEOUT_MS,
  )

  it(
    'stops cleanly afterwards and gives the directory back',
    async () => {
      const exited = new Promise<number | null>((resolve) => start.once('exit', resolve))
      start.kill('SIGTERM')
      expect(await exited).toBe(0)
      expect(existsSync(path.join(directory, '.bankrec', 'bankrec.lock'))).toBe(false)
      const errors = startErr
        .split('\n')
        .filter((line) => line.trim() !== '')
        .filter((line) => {
          try {
            return (JSON.parse(line) as { level: number }).level >= 50
          } catch {
            return true
          }
        })
      expect(errors).toEqual([])
    },
    TIMEOUT_MS,
  )
})
