import type { Queue } from 'bullmq'
import type { Clock } from '../clock/index.js'
import type { Logger } from '../observability/index.js'
import { CONNECTION_SYNC_JOB_OPTIONS, refreshJobId, type ConnectionSyncJobData } from '../queue/index.js'
import type { ConnectionSyncResult } from './sync-connection.js'

// ── across runs of one process: the re-read after caught-up runs, put off to an owed job ───────────────────────

/**
 * Paces the re-read that follows caught-up runs: the connection's status, its accounts and balances, then
 * `onSynced` (the balance proof). Under a stream of payments nearly every run catches up, and a re-read after each
 * cost three bank calls and some forty statements per payment, more than the sync itself. A caught-up run within
 * `everyMs` of the connection's last re-read by any process (sync_requests.refreshed_at, which the run's own
 * request update answers) owes one instead (`owe`: a delayed connection-sync job, durable like any request), due
 * when the interval is over: a status change a dropped webhook hid is seen at most that much later. One time for
 * every process, since each took its turn at the lock and re-read what the other just had (issue 29). The days a
 * put-off proof must cover wait in balance_proof_due, written with each page.
 */
export type RefreshPacing = {
  everyMs: number
  /**
   * When this process last read each connection's status (clock ms), with or without the rest: a locked loop's
   * once-a-second status read counts from it (RefreshClocks), not from the loop's start.
   */
  statusReadAt: Map<string, number>
  owe(connectionId: string, dueAtMs: number): Promise<void>
}

/**
 * One worker process's pacing of the re-read after caught-up runs (RefreshPacing, `everyMs` apart): a re-read put
 * off is owed to a delayed job, due `dueAtMs`, that syncs the connection and re-reads it. Runs owing in the same
 * interval share the job (refreshJobId), whichever process they run in, and this process adds it once.
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
    statusReadAt: new Map(),
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

/** Whether a caught-up run leaves its re-read to a job owed for later (RefreshPacing). */
export async function putOffRefresh(
  deps: { refreshPacing?: RefreshPacing; clock: Clock; logger: Logger },
  connectionId: string,
  runs: ConnectionSyncResult,
  /** The connection's last re-read by any process (sync_requests.refreshed_at); null, never. */
  refreshedAt: Date | null,
): Promise<boolean> {
  const pacing = deps.refreshPacing
  // A bootstrap re-reads every day, and a settled quarantine days that balance_proof_due does not hold.
  if (!pacing || runs.bootstrapped || runs.quarantineSettled > 0 || refreshedAt === null) return false
  const dueAtMs = refreshedAt.getTime() + pacing.everyMs
  if (dueAtMs <= deps.clock.now().getTime()) return false
  try {
    await pacing.owe(connectionId, dueAtMs)
    return true
  } catch (error) {
    deps.logger.warn({ err: error, connectionId }, 'could not owe the re-read after a sync; re-reading now')
    return false
  }
}

// ── within one locked loop: the re-read while runs keep coming ─────────────────────────────────────────────────

const CONNECTION_READ_EVERY_MS = 1_000
const PROOF_EVERY_MS = 5_000

/**
 * When one locked loop last re-read its connection. Once caught up, both re-reads are due at once; while runs keep
 * coming, the connection's status every second (a re-authentication episode may be short, and a dropped webhook
 * leaves this read to see it) and the accounts, balances and proof every 5 s (the proof's days are owed durably
 * with each page in balance_proof_due, so a connection that keeps receiving payments syncs again without waiting
 * for it after every run). The status's second counts from this process's last read of it (RefreshPacing): under
 * a stream of payments the lock passes between processes every few runs, and a loop that read the status at its
 * start whatever its process had read just before held the lock for a bank call and its statements a third of
 * the time (docs/performance.md, End-to-end latency).
 */
export type RefreshClocks = {
  /** When the loop last read the connection's status (clock ms); never, at its start. */
  connectionReadAt: number
  /** When the loop last re-read the accounts and balances and proved them (clock ms); its start, at first. */
  provedAt: number
}

export function startRefreshClocks(
  nowMs: number,
  /** This process's last read of the connection's status (RefreshPacing.statusReadAt); never, when none. */
  statusReadAt = Number.NEGATIVE_INFINITY,
): RefreshClocks {
  return { connectionReadAt: statusReadAt, provedAt: nowMs }
}

/** A status read done: the loop's clock, and the process's, from which later loops count. */
export function noteStatusRead(
  clocks: RefreshClocks,
  pacing: RefreshPacing | undefined,
  connectionId: string,
  nowMs: number,
): void {
  clocks.connectionReadAt = nowMs
  pacing?.statusReadAt.set(connectionId, nowMs)
}

export function connectionReadDue(clocks: RefreshClocks, caughtUp: boolean, nowMs: number): boolean {
  return caughtUp || nowMs - clocks.connectionReadAt >= CONNECTION_READ_EVERY_MS
}

export function proofDue(clocks: RefreshClocks, caughtUp: boolean, nowMs: number): boolean {
  return caughtUp || nowMs - clocks.provedAt >= PROOF_EVERY_MS
}

/** A proof done: the loop's clock. (The run records it for every process too: noteConnectionRefreshed.) */
export function noteProved(clocks: RefreshClocks, nowMs: number): void {
  clocks.provedAt = nowMs
}
