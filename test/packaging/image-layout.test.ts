import { spawn } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The Docker image's layout without a container engine (none runs on the development machines): the Dockerfile's
 * environment, its working directory owned by root, BANKREC_DATA_DIR a directory the unprivileged user owns in a
 * parent it may not write, and the CLI run as that user: `migrate`, then `start`.
 */
const root = path.resolve(import.meta.dirname, '../..')
const TSX = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href
const MAIN = path.join(root, 'src/cli/main.ts')
const TIMEOUT_MS = 240_000
/** `nobody` exists on every Debian machine; the image's `node` user does not exist here. */
const USER = { uid: 65534, gid: 65534 }
const asRoot = process.getuid?.() === 0

/** The ENV lines of the Dockerfile, so the test runs what the image sets. */
function dockerfileEnv(): Record<string, string> {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8')
  const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? ''
  return Object.fromEntries([...block.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]))
}

let base: string
let dataDir: string
let env: NodeJS.ProcessEnv

function bankrecAsUser(args: string[], onStdout?: (text: string) => void) {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: root, env, ...USER })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
    onStdout?.(stdout)
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, stdout, stderr }))
  })
  return { child, exited }
}

beforeAll(async () => {
  if (!asRoot) return
  base = await mkdtemp(path.join(tmpdir(), 'bankrec-image-'))
  await chmod(base, 0o755)
  // `/` of the image: root's, not writable by the user. The data directory: `RUN mkdir -p /data && chown node /data`.
  const slash = path.join(base, 'slash')
  dataDir = path.join(slash, 'data')
  await mkdir(dataDir, { recursive: true })
  await chmod(slash, 0o755)
  await chown(dataDir, USER.uid, USER.gid)
  const image = dockerfileEnv()
  expect(image).toMatchObject({ BANKREC_DATA_DIR: '/data', HOST: '0.0.0.0', NODE_ENV: 'production' })
  env = { PATH: process.env.PATH, HOME: '/nonexistent', ...image, BANKREC_DATA_DIR: dataDir, PORT: '0' }
  // tsx keeps its cache under the temporary directory by user id: a root-owned one would not do.
  env.TMPDIR = path.join(base, 'tmp')
  await mkdir(env.TMPDIR, { mode: 0o1777 })
  await chmod(env.TMPDIR, 0o1777)
}, TIMEOUT_MS)

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true })
})

describe.runIf(asRoot)("the image's layout as an unprivileged user", () => {
  it(
    'migrates with the generated key inside BANKREC_DATA_DIR, whose parent it may not write',
    async () => {
      const run = await bankrecAsUser(['migrate']).exited
      expect(run.stderr).not.toMatch(/EACCES/)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('database schema bankrec is up to date')
      const key = statSync(path.join(dataDir, 'secret-key'))
      expect(key.uid).toBe(USER.uid)
      expect(key.mode & 0o777).toBe(0o600)
      expect(existsSync(path.join(path.dirname(dataDir), 'secret-key'))).toBe(false)
      expect(statSync(path.join(dataDir, 'pg', 'PG_VERSION')).uid).toBe(USER.uid)
    },
    TIMEOUT_MS,
  )

  it(
    'then starts, answers /readyz and stops cleanly',
    async () => {
      let announced: (url: string) => void = () => undefined
      const listening = new Promise<string>((resolve) => (announced = resolve))
      const start = bankrecAsUser(['start', '--no-demo'], (out) => {
        const match = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(out)
        if (match) announced(`http://127.0.0.1:${match[1]}`)
      })
      const url = await Promise.race([
        listening,
        start.exited.then((run) => {
          throw new Error(`start exited ${run.code}: ${run.stderr}`)
        }),
      ])
      const ready = await fetch(`${url}/readyz`)
      expect(ready.status).toBe(200)
      start.child.kill('SIGTERM')
      const run = await start.exited
      expect(run.code, run.stderr).toBe(0)
    },
    TIMEOUT_MS,
  )
})
