import type { TrackerContext } from './transfer-context.js'
import { pollDueTransfers } from './track-transfer.js'

export type TransferTracker = {
  /** Polls the due transfers now; resolves with how many were polled. */
  pollDue(): Promise<number>
  close(): Promise<void>
}

/**
 * Polls non-terminal transfers until they are terminal (the service does not push transfer.status_changed yet).
 * A periodic scan of `next_poll_at` rather than a delayed job per transfer: the row is the only schedule, so no
 * lost job can strand a transfer; due times follow bankrec's injectable clock, so tests drive the back-off and
 * reminders with a virtual clock; it works alike on Redis and PostgreSQL queues.
 */
export function startTransferTracker(ctx: TrackerContext, options: { scanSeconds: number }): TransferTracker {
  let running: Promise<number> | undefined
  const pollDue = () => {
    // One scan at a time per process; a call during a scan waits for it and then scans again.
    const next = (running ?? Promise.resolve(0)).then(() => pollDueTransfers(ctx))
    const current = next.finally(() => {
      if (running === current) running = undefined
    })
    running = current
    return current
  }
  const timer = setInterval(() => {
    if (running) return
    pollDue().catch((error: unknown) => ctx.logger.error({ err: error }, 'transfer scan failed'))
  }, options.scanSeconds * 1000)
  timer.unref()
  return {
    pollDue,
    async close() {
      clearInterval(timer)
      await running?.catch(() => undefined)
    },
  }
}
