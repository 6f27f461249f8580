import type { Clock } from '../clock/index.js'

/**
 * The bank's own timeline: tasks due at a virtual time run, in time order, whenever the sandbox catches up with
 * its clock (on every request, on a short real-time tick and after the clock is advanced). A task may schedule
 * more tasks; those that fall due within the same catch-up run too.
 */
export type Scheduler = {
  at(due: Date, label: string, run: () => void): void
  after(seconds: number, label: string, run: () => void): void
  /** Runs every task due at or before the clock's now. Returns how many ran. */
  runDue(): number
  pending(): Array<{ due: Date; label: string }>
  clear(): void
}

type Task = { dueMs: number; seq: number; label: string; run: () => void }

export function createScheduler(clock: Clock): Scheduler {
  let tasks: Task[] = []
  let seq = 0
  let running = false
  const insert = (task: Task) => {
    let i = tasks.length
    while (
      i > 0 &&
      (tasks[i - 1]!.dueMs > task.dueMs ||
        (tasks[i - 1]!.dueMs === task.dueMs && tasks[i - 1]!.seq > task.seq))
    )
      i--
    tasks.splice(i, 0, task)
  }
  const scheduler: Scheduler = {
    at: (due, label, run) => insert({ dueMs: due.getTime(), seq: seq++, label, run }),
    after: (seconds, label, run) =>
      scheduler.at(new Date(clock.now().getTime() + seconds * 1000), label, run),
    runDue() {
      if (running) return 0
      running = true
      let count = 0
      try {
        const nowMs = clock.now().getTime()
        while (tasks.length > 0 && tasks[0]!.dueMs <= nowMs) {
          const task = tasks.shift()!
          task.run()
          count++
        }
      } finally {
        running = false
      }
      return count
    },
    pending: () => tasks.map((t) => ({ due: new Date(t.dueMs), label: t.label })),
    clear: () => {
      tasks = []
    },
  }
  return scheduler
}
