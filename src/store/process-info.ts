import { readFileSync } from 'node:fs'

/** What Linux's /proc tells of a process: its parent, when it started (clock ticks since boot) and its name. */
export type ProcessInfo = { ppid: number; startTime: string; name: string }

/** undefined when the process is gone or /proc cannot be read (not Linux): callers then fall back to isAlive. */
export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The name is in parentheses and may itself hold spaces or parentheses: the fields follow the last ')'.
    const close = stat.lastIndexOf(')')
    const fields = stat.slice(close + 2).split(' ')
    return {
      name: stat.slice(stat.indexOf('(') + 1, close),
      ppid: Number(fields[1]),
      startTime: fields[19] ?? '',
    }
  } catch {
    return undefined
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
