import type { Queue } from 'bullmq'

/** One queue as the metrics and the dashboard show it. */
export type QueueStats = {
  name: string
  /** Jobs per BullMQ state (waiting, active, delayed, prioritized, completed, failed, …). */
  counts: Record<string, number>
  /** Seconds since the oldest waiting job became ready to run; 0 when none waits. */
  oldestWaitingSeconds: number
}

/**
 * Reads depth and age of one queue. BullMQ stamps jobs with the system time, so `nowMs` must be the system time
 * too (not the sandbox's virtual clock).
 */
export async function queueStats(
  queue: Pick<Queue, 'name' | 'getJobCounts' | 'getJobs'>,
  nowMs: number,
): Promise<QueueStats> {
  const [counts, oldest] = await Promise.all([
    queue.getJobCounts(),
    // asc: the far end of the wait list, where workers take jobs from.
    queue.getJobs(['waiting'], 0, 0, true),
  ])
  const job = oldest[0]
  const readySince = job ? job.timestamp + (job.delay ?? 0) : undefined
  return {
    name: queue.name,
    counts,
    oldestWaitingSeconds: readySince === undefined ? 0 : Math.max(0, (nowMs - readySince) / 1000),
  }
}
