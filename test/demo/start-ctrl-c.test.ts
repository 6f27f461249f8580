import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
// The sources through tsx, from a directory of its own (where `tsx` alone would not resolve).
const TSX = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href
let directory: string
/** A whole `bankrec start` (embedded PostgreSQL, sandbox, demo story) on a busy 2-core machine. */
const PROCESS_TIMEOUT_MS = 120_000

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'bankrec-start-'))
  // As root the embedded PostgreSQL runs as the postgres user, which must be able to enter the directory.
  await chmod(directory, 0o755)
})

/**
 * Crashes (anything on stderr that is not a JSON log line) and errors logged while running. Errors logged while
 * stopping are left out: a BullMQ PostgreSQL-backend worker may still report its connection closing under it.
 */
function problems(stderr: string): string[] {
  const found: string[] = []
  let stopping = false
  for (const line of stderr.split('\n').filter((l) => l.trim() !== '')) {
    let entry: { level: number; msg?: string }
    try {
      entry = JSON.parse(line) as { level: number; msg?: string }
    } catch {
      found.push(line)
      continue
    }
    if (entry.msg === 'stopping') stopping = true
    if (entry.level >= 50 && !stopping) found.push(line)
  }
  return found
}

afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

/**
 * Runs `bankrec start` with nothing configured until `ready` shows on stdout, then Ctrl-C (its whole group) or,
 * as a process manager does, SIGTERM to the process alone.
 */
function startThenInterrupt(
  ready: RegExp,
  { signal = 'SIGINT', args = [] }: { signal?: 'SIGINT' | 'SIGTERM'; args?: string[] } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'info' }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'BANK_API_URL', 'BANKREC_DATA_DIR', 'KIT_API_TOKEN'])
    delete env[name]
  const child = spawn(
    process.execPath,
    ['--import', TSX, path.join(root, 'src/cli/main.ts'), 'start', ...args],
    {
      cwd: directory,
      env,
      // A process group of its own, as a shell gives a foreground job: Ctrl-C signals every process in it.
      detached: true,
    },
  )
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    let interrupted = false
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      if (!interrupted && ready.test(stdout)) {
        interrupted = true
        if (signal === 'SIGINT') process.kill(-child.pid!, 'SIGINT')
        else child.kill('SIGTERM')
      }
    })
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('npm start with nothing configured', () => {
  it(
    'runs in sandbox mode, prints the dashboard and its token, and stops cleanly on Ctrl-C',
    async () => {
      const run = await startThenInterrupt(/demo: P02 /)
      expect(problems(run.stderr)).toEqual([])
      expect(run.code).toBe(0)
      expect(run.stdout).toContain('SANDBOX MODE')
      expect(run.stdout).toMatch(/dashboard: {2}http:\/\/127\.0\.0\.1:\d+\/#token=kit_\S+/)
      expect(run.stdout).toContain('demo: 60 invoices loaded, 0 already there')
    },
    PROCESS_TIMEOUT_MS,
  )

  it(
    'stops on SIGTERM with exit 0 and no error at all, not even while stopping (no 57P01, no unhandled rejection)',
    async () => {
      const run = await startThenInterrupt(/API token: /, { signal: 'SIGTERM', args: ['--no-demo'] })
      const lines = run.stderr.split('\n').filter((line) => line.trim() !== '')
      const errors = lines.filter((line) => {
        try {
          return (JSON.parse(line) as { level: number }).level >= 50
        } catch {
          return true
        }
      })
      expect(errors).toEqual([])
      expect(run.stderr).not.toMatch(/57P01|terminating connection|unhandled/i)
      expect(run.code).toBe(0)
    },
    PROCESS_TIMEOUT_MS,
  )

  it(
    'resumes the story where it stopped on the next start',
    async () => {
      const state = JSON.parse(await readFile(path.join(directory, '.bankrec', 'sandbox-state.json'), 'utf8'))
      expect(state.state.connections['$sandbox.map']).toHaveLength(1)
      const run = await startThenInterrupt(/demo: resuming: .*\n.*demo: P\d\d /)
      expect(problems(run.stderr)).toEqual([])
      expect(run.code).toBe(0)
      expect(run.stdout).toContain('demo: 0 invoices loaded, 60 already there')
      expect(run.stdout).not.toContain('demo: created connection')
      expect(run.stdout).not.toContain('demo: P01 ')
    },
    PROCESS_TIMEOUT_MS,
  )
})
