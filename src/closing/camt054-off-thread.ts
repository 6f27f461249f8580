import { Decimal } from 'decimal.js'
import pLimit from 'p-limit'
import { Worker } from 'node:worker_threads'
import { CAMT054_LIMITS, checkCamt054Size } from './camt054-limits.js'
import type { Camt054Entry } from './camt054-parse.js'
import type { WireEntry, WorkerAnswer } from './camt054-worker.js'
import { ClosingRequestError } from './closing-errors.js'

/** Parses at once, so a burst of uploads cannot take every core from the event loop and the database. */
const parses = pLimit(2)

/**
 * The worker's module beside this one. Run from TypeScript sources (tsx, vitest) the worker has no loader of its
 * own: it registers tsx's before importing the `.ts` file. Built (`dist/`), it is plain JavaScript.
 */
function startWorker(): Worker {
  const url = new URL(`./camt054-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url)
  if (url.pathname.endsWith('.js')) return new Worker(url)
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}) })`
  return new Worker(boot, { eval: true })
}

function fromWire(entry: WireEntry): Camt054Entry {
  return {
    ...entry,
    charges: entry.charges === null ? null : new Decimal(entry.charges),
    transactions: entry.transactions.map((tx) => ({ ...tx, charges: new Decimal(tx.charges) })),
  }
}

function tooSlow(budgetMs: number): ClosingRequestError {
  const message = `took more than ${budgetMs} ms to parse, the limit for a camt.054 notification; parsing was stopped`
  return new ClosingRequestError(
    'unprocessable',
    'camt054_too_slow',
    `body ${message}. Nothing was applied.`,
    [{ path: 'body', message }],
  )
}

/** Workers that answered and wait for the next document; each parses one document at a time. */
const idle: Worker[] = []

/**
 * Listens to a worker until `settle` says it is done; only these listeners are removed then (removeAllListeners
 * would also drop the Worker's own, which start and stop its message port).
 */
function listen(
  worker: Worker,
  on: { message(answer: WorkerAnswer): void; error(error: Error): void; exit(code: number): void },
): () => void {
  worker.on('message', on.message).on('error', on.error).on('exit', on.exit)
  return () => void worker.off('message', on.message).off('error', on.error).off('exit', on.exit)
}

/** An idle worker, or a new one once it has loaded the parser. */
function acquireWorker(): Promise<Worker> {
  // A worker that stopped while idle (threadId -1) is left behind.
  for (let kept = idle.pop(); kept; kept = idle.pop()) {
    if (kept.threadId === -1) continue
    kept.ref()
    return Promise.resolve(kept)
  }
  return new Promise((resolve, reject) => {
    const worker = startWorker()
    const stop = listen(worker, {
      message: () => {
        stop()
        resolve(worker)
      },
      error: (error) => {
        stop()
        reject(error)
      },
      exit: (code) => {
        stop()
        reject(new Error(`The camt.054 parser's worker stopped (exit code ${code}).`))
      },
    })
  })
}

/**
 * Runs one parse in a worker kept between uploads (starting one costs more than most parses); past `budgetMs`
 * from the document's hand-over the worker is terminated and the next parse starts a new one.
 */
async function parseInWorker(xml: string, budgetMs: number): Promise<Camt054Entry[]> {
  const worker = await acquireWorker()
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void, keep: boolean) => {
      clearTimeout(timer)
      stop()
      if (keep) {
        // An idle worker does not keep the process alive.
        worker.unref()
        idle.push(worker)
      } else {
        // Errors after the answer (a terminate racing the exit) change nothing.
        worker.on('error', () => undefined)
        void worker.terminate()
      }
      settle()
    }
    const timer = setTimeout(() => finish(() => reject(tooSlow(budgetMs)), false), budgetMs)
    const stop = listen(worker, {
      message: (answer) => {
        if ('ready' in answer) return
        if (answer.ok) return finish(() => resolve(answer.entries.map(fromWire)), true)
        if ('refusal' in answer) {
          const { kind, code, message, details } = answer.refusal
          return finish(() => reject(new ClosingRequestError(kind, code, message, details)), true)
        }
        finish(
          () =>
            reject(new Error('The camt.054 parser failed: see the worker (no parser text is passed on).')),
          false,
        )
      },
      error: (error) => finish(() => reject(error), false),
      exit: (code) =>
        finish(
          () =>
            reject(new Error(`The camt.054 parser's worker stopped (exit code ${code}) before answering.`)),
          false,
        ),
    })
    worker.postMessage(xml)
  })
}

/**
 * The entries of a camt.054 notification, parsed off the event loop: the byte cap is checked here, then a worker
 * thread counts elements, attributes and depth on the text before it parses (either way 400
 * `camt054_too_complex`; the count of a 1 MB document is tens of ms, not for the event loop either), all within
 * the time budget (422 `camt054_too_slow` past it). Refusals are the parser's own (`invalid_camt054`), in our words.
 */
export async function parseCamt054OffThread(
  xml: string,
  options: { budgetMs?: number } = {},
): Promise<Camt054Entry[]> {
  checkCamt054Size(xml)
  return parses(() => parseInWorker(xml, options.budgetMs ?? CAMT054_LIMITS.parseMs))
}
