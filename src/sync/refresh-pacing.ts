import type { Queue } from 'bullmq'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { CONNECTION_SYNC_JOB_OPTIONS, refreshJobId, type ConnectionSyncJobData } from '../queue/index.js'
import type { ConnectionReadTimes } from '../store/index.js'
import type { ConnectionSyncResult } from './sync-connection.js'

// ── across runs and processes: the reads after caught-up runs, put off to an owed job ───────────────────────────

/**
 * Paces the reads that follow caught-up runs: the connection's status, and its accounts and balances with
 * `onSynced` (the balance proof). Under a stream of payments nearly every run catches up, and reading all of it
 * after each cost three bank calls and some forty statements per payment, more than the sync itself. So a
 * caught-up run reads the status at most every `everyMs`, and the accounts, balances and proof at most as often
 * as a locked loop does while runs keep coming (every 5 s, or `everyMs` when longer), counting from the last read
 * by any process (sync_requests, which the run's own request update answers): under a stream the lock passes
 * between processes, and each re-read what the other just had (issue 29). What a run puts off it owes (`owe`: a
 * delayed connection-sync job, durable like any request, that reads all of it), due when the proof's interval is
 * over; a status change a dropped webhook hid is seen within `everyMs` while runs keep coming, within the proof's
 * interval after the last. The days a put-off proof must cover wait in balance_proof_due, written with each page.
 */
export type RefreshPacing = {
  /** Least time between two status reads after caught-up runs (SYNC_REFRESH_SECONDS); 0: no pacing at all. */
  everyMs: number
  owe(connectionId: string, dueAtMs: number): Promise<void>
}

/**
 * One worker process's pacing of the reads after caught-up runs (RefreshPacing): reads put off are owed to a
 * delayed job, due `dueAtMs`, that syncs the connection and reads all of it. Runs owing in the same interval share
 * the job (refreshJobId), whichever process they run in, and this process adds it once.
 */
export function createRefreshPacing(
  queue: Queue<ConnectionSyncJobData>,
  everyMs: number,
  clock: Clock,
): RefreshPacing {
  // What this process last owed per connection: that job waits until its due time, so later runs of the interval
  // need not add it again; once the time is past, a run re-reads itself.
  const owedUntil = new Map<string, number>()
  return {
    everyMs,
    async owe(connectionId, dueAtMs) {
      if (owedUntil.get(connectionId) === dueAtMs) return
      await queue.add(
        'sync',
        { connectionId, reason: 'refresh', refresh: true },
        {
          ...CONNECTION_SYNC_JOB_OPTIONS,
          jobId: refreshJobId(connectionId, Math.ceil(dueAtMs / everyMs)),
          delay: Math.max(0, dueAtMs - clock.now().getTime()),
        },
      )
      owedUntil.set(connectionId, dueAtMs)
    },
  }
}

/** What a run reads after it: the connection's status; its accounts and balances, and the proof. */
export type Reads = { status: boolean; proof: boolean }

const ALL: Reads = { status: true, proof: true }

/**
 * What a caught-up run reads now (RefreshPacing); what it leaves it owes to a job, and reads at once if that job
 * cannot be queued.
 */
export async function readsAfterCaughtUp(
  deps: { refreshPacing?: RefreshPacing; clock: Clock; logger: Logger },
  connectionId: string,
  runs: ConnectionSyncResult,
  /** When any process last read the connection (markSyncRequestsCompleted). */
  last: ConnectionReadTimes,
): Promise<Reads> {
  const pacing = deps.refreshPacing
  // A bootstrap re-reads every day, and a settled quarantine days that balance_proof_due does not hold.
  if (!pacing || pacing.everyMs === 0 || runs.bootstrapped || runs.quarantineSettled > 0) return ALL
  const nowMs = deps.clock.now().getTime()
  const proofDueAtMs = atMs(last.refreshedAt) + proofEveryMs(pacing)
  if (proofDueAtMs <= nowMs) return ALL
  try {
    await pacing.owe(connectionId, proofDueAtMs)
  } catch (error) {
    deps.logger.warn({ err: error, connectionId }, 'could not owe the re-read after a sync; re-reading now')
    return ALL
  }
  return { status: nowMs - atMs(last.statusReadAt) >= pacing.everyMs, proof: false }
}

/** The job of a read pacing owed: the interval it fell due in (refreshJobSlot), null when its id does not say. */
export type OwedRead = { slot: number | null }

/**
 * What the job of an owed read reads once caught up: all of it, however recent the last read by the clock (the
 * owing process's clock may run ahead), while no full read came after the one the job was owed after. When one
 * did (a run found the proof due as the job fell due), it covered the runs that owed the job: the job reads
 * nothing if its own runs changed nothing, else it reads as any caught-up run does (null: readsAfterCaughtUp).
 */
export function readsOwed(
  pacing: RefreshPacing | undefined,
  owed: OwedRead,
  runs: ConnectionSyncResult,
  last: ConnectionReadTimes,
): Reads | null {
  if (!pacing?.everyMs || owed.slot === null) return ALL
  // The slot rounds the due time up by less than everyMs: a read within that margin still counts as the one owed
  // after, and the job reads again.
  const owedAfterMs = owed.slot * pacing.everyMs - proofEveryMs(pacing)
  if (atMs(last.refreshedAt) <= owedAfterMs) return ALL
  const changedNothing =
    !runs.bootstrapped &&
    runs.upserted === 0 &&
    runs.deleted === 0 &&
    runs.quarantined === 0 &&
    runs.quarantineSettled === 0
  return changedNothing ? { status: false, proof: false } : null
}

const proofEveryMs = (pacing: RefreshPacing) => Math.max(pacing.everyMs, PROOF_EVERY_MS)

const atMs = (at: Date | null) => (at === null ? Number.NEGATIVE_INFINITY : at.getTime())

// ── within one locked loop: the reads while runs keep coming ───────────────────────────────────────────────────

const CONNECTION_READ_EVERY_MS = 1_000
const PROOF_EVERY_MS = 5_000

/**
 * When one locked loop last read its connection. While runs keep coming: the connection's status every second (a
 * re-authentication episode may be short, and a dropped webhook leaves this read to see it) and the accounts,
 * balances and proof every 5 s (the proof's days are owed durably with each page in balance_proof_due, so a
 * connection that keeps receiving payments syncs again without waiting for it after every run). The status's
 * second counts from the last read by any process (noteReadTimes): under a stream of payments the lock passes
 * between processes every few runs, and a loop that read the status at its start whatever had been read just
 * before held the lock for a bank call and its statements a third of the time (docs/performance.md, End-to-end
 * latency). Once caught up, readsAfterCaughtUp decides.
 */
export type RefreshClocks = {
  /** When the connection's status was last read (clock ms); never, at the loop's start. */
  connectionReadAt: number
  /** When the loop last re-read the accounts and balances and proved them (clock ms); its start, at first. */
  provedAt: number
}

export function startRefreshClocks(nowMs: number): RefreshClocks {
  return { connectionReadAt: Number.NEGATIVE_INFINITY, provedAt: nowMs }
}

/** The last status read by any process (markSyncRequestsCompleted), when later than the loop's own. */
export function noteReadTimes(clocks: RefreshClocks, last: ConnectionReadTimes): void {
  clocks.connectionReadAt = Math.max(clocks.connectionReadAt, atMs(last.statusReadAt))
}

/** What a run that did not catch up reads after it. */
export function readsWhileRunsCome(clocks: RefreshClocks, nowMs: number): Reads {
  return {
    status: nowMs - clocks.connectionReadAt >= CONNECTION_READ_EVERY_MS,
    proof: nowMs - clocks.provedAt >= PROOF_EVERY_MS,
  }
}
