import { parentPort } from 'node:worker_threads'
import { DomainError } from '../errors/index.js'
import { prescanCamt054 } from './camt054-limits.js'
import { parseCamt054, type Camt054Entry } from './camt054-parse.js'

/** An entry as it crosses to the main thread: a Decimal does not survive structured cloning. */
export type WireEntry = Omit<Camt054Entry, 'charges' | 'transactions'> & {
  charges: string | null
  transactions: Array<Omit<Camt054Entry['transactions'][number], 'charges'> & { charges: string }>
}

/** What the worker answers: the entries, the parser's refusal, or that it failed (a bug: no text crosses). */
export type WorkerAnswer =
  | { ready: true }
  | { ok: true; entries: WireEntry[] }
  | { ok: false; refusal: Pick<DomainError, 'kind' | 'code' | 'message' | 'details'> }
  | { ok: false; crashed: true }

function toWire(entry: Camt054Entry): WireEntry {
  return {
    ...entry,
    charges: entry.charges === null ? null : entry.charges.toFixed(),
    transactions: entry.transactions.map((tx) => ({ ...tx, charges: tx.charges.toFixed() })),
  }
}

// One document at a time: the main thread posts the next once it hears `ready` or an answer, and ends the worker
// when the time budget runs out (camt054-off-thread.ts).
const port = parentPort!
port.on('message', (xml: string) => {
  let answer: WorkerAnswer
  try {
    prescanCamt054(xml)
    answer = { ok: true, entries: parseCamt054(xml).map(toWire) }
  } catch (error) {
    answer =
      error instanceof DomainError
        ? {
            ok: false,
            refusal: { kind: error.kind, code: error.code, message: error.message, details: error.details },
          }
        : { ok: false, crashed: true }
  }
  port.postMessage(answer)
})
port.postMessage({ ready: true } satisfies WorkerAnswer)
