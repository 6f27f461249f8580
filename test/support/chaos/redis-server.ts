import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { freePort } from './free-port.js'
import { waitUntil } from './wait-until.js'

export type PrivateRedis = {
  url: string
  port: number
  /** SIGKILLs the server (a crash: no shutdown work) and starts it again on the same port and data directory. */
  crashAndRestart(downMs?: number): Promise<void>
  close(): Promise<void>
}

/**
 * A redis-server of the run's own on a free loopback port, with an append-only file fsynced on every write in a
 * temporary directory: a crash loses nothing Redis acknowledged, as on a production Redis with
 * `appendfsync always`. The machine's shared Redis (no persistence) is never touched.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bankrec-chaos-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()

  const start = async () => {
    const process_ = spawn(
      'redis-server',
      [
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        dir,
        '--logfile',
        path.join(dir, 'redis.log'),
      ],
      { stdio: 'ignore' },
    )
    child = process_
    exited = new Promise((resolve) => process_.once('exit', () => resolve()))
    await waitUntil(`redis-server on port ${port}`, () => ping(port), { timeoutMs: 10_000, intervalMs: 50 })
  }

  const kill = async () => {
    child?.kill('SIGKILL')
    await exited
    child = undefined
  }

  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async crashAndRestart(downMs = 1_500) {
      await kill()
      await new Promise((resolve) => setTimeout(resolve, downMs))
      await start()
    },
    async close() {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function ping(port: number): Promise<boolean> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}
