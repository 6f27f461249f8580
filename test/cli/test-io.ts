import { PassThrough } from 'node:stream'
import type { CommandIo } from '../../src/cli/index.js'

/** A CommandIo that records stdout and stderr and stops when the test says so (the real CLI: SIGINT/SIGTERM). */
export function testIo(env: Record<string, string | undefined>) {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (chunk) => (out += chunk))
  stderr.on('data', (chunk) => (err += chunk))
  let stop: () => void = () => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  const io: CommandIo = { stdout, stderr, env, untilStopped: () => stopped }
  /** Resolves with the first match of `pattern` in stdout. */
  const waitForOutput = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve) => {
      const check = () => {
        const match = pattern.exec(out)
        if (!match) return
        stdout.off('data', check)
        resolve(match)
      }
      stdout.on('data', check)
      check()
    })
  return { io, stop, out: () => out, err: () => err, waitForOutput }
}
