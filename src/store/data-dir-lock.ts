import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { isAlive, processInfo } from './process-info.js'

/** The lock a bankrec that runs the embedded PostgreSQL keeps in its data directory. */
const DATA_DIR_LOCK_FILE = 'bankrec.lock'

/** Who holds a data directory, and (once it is up) where its embedded PostgreSQL listens. */
export type DataDirHolder = {
  pid: number
  /** What runs there, e.g. `bankrec start`: for the messages of whoever finds the directory held. */
  command: string
  startedAt: string
  /** /proc's start time of the holder: a PID reused by another process does not hold the directory. */
  processStart?: string
  /** Set once its PostgreSQL accepts connections: other bankrec commands connect to it. */
  connectionString?: string
}

type DataDirClaim =
  | {
      held: false
      lockFile: string
      /** Tells later commands where the PostgreSQL it started listens. */
      publish(connectionString: string): Promise<void>
      /** Removes the lock (only while it still names this process). */
      release(): Promise<void>
    }
  | { held: true; lockFile: string; holder: DataDirHolder }

async function readHolder(file: string): Promise<DataDirHolder | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<DataDirHolder>
    return Number.isSafeInteger(parsed.pid) && (parsed.pid ?? 0) > 0 ? (parsed as DataDirHolder) : undefined
  } catch {
    return undefined
  }
}

/** Whether the process the lock names still runs (the same process, not a later one with its PID). */
function holderIsAlive(holder: DataDirHolder): boolean {
  if (!isAlive(holder.pid)) return false
  if (holder.processStart === undefined) return true
  const now = processInfo(holder.pid)
  return now === undefined || now.startTime === holder.processStart
}

/** Writes `content` whole under a private name, then moves or links it into place: readers never see half a file. */
async function writeWhole(file: string, content: string, place: 'link' | 'rename'): Promise<void> {
  const staging = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  await fs.writeFile(staging, content, { mode: 0o644, flag: 'wx' })
  try {
    if (place === 'link') await fs.link(staging, file)
    else await fs.rename(staging, file)
  } finally {
    await fs.rm(staging, { force: true })
  }
}

/**
 * Takes the data directory for this process, or reports the live bankrec that holds it. A lock whose process is
 * gone (killed, crashed) is stale and taken over.
 */
export async function claimDataDir(dir: string, command: string): Promise<DataDirClaim> {
  const lockFile = path.join(dir, DATA_DIR_LOCK_FILE)
  const mine: DataDirHolder = {
    pid: process.pid,
    command,
    startedAt: new Date().toISOString(),
    processStart: processInfo(process.pid)?.startTime,
  }
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await writeWhole(lockFile, `${JSON.stringify(mine)}\n`, 'link')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = await readHolder(lockFile)
      if (holder && holderIsAlive(holder)) return { held: true, lockFile, holder }
      await fs.rm(lockFile, { force: true })
      continue
    }
    const stillMine = async () => (await readHolder(lockFile))?.pid === process.pid
    return {
      held: false,
      lockFile,
      async publish(connectionString) {
        if (await stillMine())
          await writeWhole(lockFile, `${JSON.stringify({ ...mine, connectionString })}\n`, 'rename')
      },
      async release() {
        if (await stillMine()) await fs.rm(lockFile, { force: true })
      },
    }
  }
  throw new Error(`could not take ${lockFile}: other processes keep replacing it`)
}

/** Reads the lock again until its holder has published its PostgreSQL, stopped, or `timeoutMs` passed. */
export async function waitForPublished(
  lockFile: string,
  timeoutMs: number,
): Promise<DataDirHolder | undefined> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const holder = await readHolder(lockFile)
    if (!holder || !holderIsAlive(holder)) return undefined
    if (holder.connectionString || Date.now() >= deadline) return holder
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}
