import type { Kysely } from 'kysely'
import { markAppEventsDelivered, type Database } from '../store/index.js'

/** Marks one sent event delivered at `at`; resolves once the mark is stored. */
export type MarkDelivered = (id: string, at: Date) => Promise<void>

/**
 * Group-commits the delivered marks of one process's sends: the marks of sends that finish in the same event-loop
 * turn, or while a mark statement is in flight, go out as one statement. A commit's events are sent several at a
 * time and each used to cost its own update, a round trip each that, on a busy machine, waited for CPU as long as
 * the POST did and halved the sends per second (docs/performance.md, End-to-end latency). Each caller is answered
 * when its mark is stored, or rejected with the statement's error (its event is then retried: delivery is at
 * least once either way).
 */
export function createDeliveredMarks(db: Kysely<Database>): MarkDelivered {
  type Pending = { id: string; at: Date; resolve: () => void; reject: (error: unknown) => void }
  let pending: Pending[] = []
  let writing = false

  const write = async () => {
    writing = true
    while (pending.length > 0) {
      const batch = pending
      pending = []
      await markAppEventsDelivered(db, batch).then(
        () => batch.forEach((mark) => mark.resolve()),
        (error: unknown) => batch.forEach((mark) => mark.reject(error)),
      )
    }
    writing = false
  }

  return (id, at) =>
    new Promise<void>((resolve, reject) => {
      // The first mark of an idle turn waits for the turn's other completions before the statement starts.
      if (pending.push({ id, at, resolve, reject }) === 1 && !writing) setImmediate(() => void write())
    })
}
