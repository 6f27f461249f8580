import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

// The CLI's TypeScript entry through tsx, not bin/bankrec.js: the bin prefers dist/ when it exists, and a stale
// build would test yesterday's code.
const ENTRY = ['--import', 'tsx', fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url))]

/** Lines a sidecar prints once it serves: `bankrec listening on URL` (start), `... health on URL/healthz` (worker). */
const ANNOUNCED_URL = /(?:listening on|health on) (http:\/\/[^\s/]+)/

export type BankrecProcess = {
  readonly name: string
  readonly pid: number
  /** The base URL the process announced. */
  readonly url: string
  readonly logFile: string
  /** Whether the process has exited (killed or by itself). */
  exited(): boolean
  /** SIGKILL: no clean-up runs in the process, as in a crash or an OOM kill. Resolves once it is gone. */
  kill(): Promise<void>
  /** SIGSTOP / SIGCONT: the process freezes with its sockets and locks open, as in a long GC pause. */
  pause(): void
  resume(): void
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

export type SpawnBankrecOptions = {
  name: string
  args: string[]
  env: Record<string, string>
  logDir: string
  /** @defaultValue {@link START_TIMEOUT_MS} */
  startTimeoutMs?: number
}

/**
 * Several processes start through tsx on two cores that other test runs share: under a load of 20 a start (or a
 * `bankrec sync` from start to exit) took over 60 s, and the run failed on that wait rather than on a check.
 */
const START_TIMEOUT_MS = 180_000

/** Runs `bankrec <args>` (the sources, through tsx) and resolves once it announces its URL. Output goes to `<logDir>/<name>.log`. */
export async function spawnBankrec(options: SpawnBankrecOptions): Promise<BankrecProcess> {
  const logFile = path.join(options.logDir, `${options.name}.log`)
  const log = createWriteStream(logFile, { flags: 'a' })
  log.on('error', () => undefined)
  log.write(`--- ${new Date().toISOString()} spawn ${options.args.join(' ')}\n`)
  const profile = process.env.BENCH_CPU_PROF
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profile, options.name)}`] : []
  const child = spawn(process.execPath, [...profiling, ...ENTRY, ...options.args], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let exited = false
  const exit = new Promise<void>((resolve) => {
    // 'close', not 'exit': the output pipes are drained by then, so nothing is written after the log ends.
    child.once('close', (code, signal) => {
      exited = true
      log.end(`--- exit code=${code} signal=${signal}\n`)
      resolve()
    })
  })
  child.stderr!.pipe(log, { end: false })
  const url = await announcedUrl(child, log, exit, options.startTimeoutMs ?? START_TIMEOUT_MS).catch(
    async (error) => {
      child.kill('SIGKILL')
      await exit
      throw new Error(`${options.name} did not start: ${(error as Error).message}\n${tail(logFile)}`)
    },
  )
  const signal = (name: NodeJS.Signals) => {
    if (!exited) child.kill(name)
  }
  return {
    name: options.name,
    pid: child.pid!,
    url,
    logFile,
    exited: () => exited,
    async kill() {
      signal('SIGKILL')
      await exit
    },
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async stop(graceMs = 10_000) {
      signal('SIGCONT')
      signal('SIGTERM')
      const timer = setTimeout(() => signal('SIGKILL'), graceMs)
      await exit
      clearTimeout(timer)
    },
  }
}

/** Runs a bankrec command to completion (e.g. `sync <id>`); rejects on a non-zero exit. */
export async function runBankrec(options: SpawnBankrecOptions): Promise<string> {
  const profile = process.env.BENCH_CPU_PROF
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profile, options.name)}`] : []
  const child = spawn(process.execPath, [...profiling, ...ENTRY, ...options.args], {
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  clearTimeout(timer)
  if (code === null)
    throw new Error(`bankrec ${options.args.join(' ')} killed after ${timeoutMs} ms:\n${output}`)
  if (code !== 0) throw new Error(`bankrec ${options.args.join(' ')} exited with ${code}:\n${output}`)
  return output
}

function announcedUrl(
  child: ChildProcess,
  log: NodeJS.WritableStream,
  exit: Promise<void>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => reject(new Error(`no URL announced within ${timeoutMs} ms`)), timeoutMs)
    child.stdout!.on('data', (chunk: Buffer) => {
      log.write(chunk)
      buffered += chunk.toString()
      const match = ANNOUNCED_URL.exec(buffered)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    void exit.then(() => {
      clearTimeout(timer)
      reject(new Error('exited before announcing its URL'))
    })
  })
}

/** The last lines of a process log, for failure messages. */
export function tail(logFile: string, lines = 40): string {
  try {
    const all = readFileSync(logFile, 'utf8').trimEnd().split('\n')
    return `--- last ${Math.min(lines, all.length)} lines of ${logFile}\n${all.slice(-lines).join('\n')}`
  } catch {
    return `(no log at ${logFile})`
  }
}
