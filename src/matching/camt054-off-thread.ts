import { Decimal } from 'decimal.js'
import pLimit from 'p-limit'
import { Worker } from 'node:worker_threads'
import { CAMT054_LIMITS, checkCamt054Size } from './camt054-limits.js'
import type { Camt054Entry } from './camt054-parse.js'
import type { WireEntry, WorkerAnswer } from './camt054-worker.js'
import { MatchingRequestError } from './matching-errors.js'

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

function tooSlow(budgetMs: number): MatchingRequestError {
  const message = `took more than ${budgetMs} ms to parse, the limit for a camt.054 notification; parsing was stopped`
  return new MatchingRequestError(
    'unprocessable',
    'camt054_too_slow',
    `body ${message}. Nothing was applied.`,
    [{ path: 'body', message }],
  )
}

/** Runs one parse in a fresh worker; past `budgetMs` from the document's hand-over the worker is terminated. */
function parseInWorker(xml: string, budgetMs: number): Promise<Camt054Entry[]> {
  return new Promise((resolve, reject) => {
    const worker = startWorker()
    let timer: NodeJS.Timeout | undefined
    const finish = (settle: () => void) => {
      clearTimeout(timer)
      worker.removeAllListeners()
      // Errors after the answer (a terminate racing the exit) change nothing.
      worker.on('error', () => undefined)
      void worker.terminate()
      settle()
    }
    worker.on('message', (answer: WorkerAnswer) => {
      if ('ready' in answer) {
        timer = setTimeout(() => finish(() => reject(tooSlow(budgetMs))), budgetMs)
        worker.postMessage(xml)
      } else if (answer.ok) {
        finish(() => resolve(answer.entries.map(fromWire)))
      } else if ('refusal' in answer) {
        const { kind, code, message, details } = answer.refusal
        finish(() => reject(new MatchingRequestError(kind, code, message, details)))
      } else {
        finish(() =>
          reject(new Error('The camt.054 parser failed: see the worker (no parser text is passed on).')),
        )
      }
    })
    worker.on('error', (error) => finish(() => reject(error)))
    worker.on('exit', (code) =>
      finish(() =>
        reject(new Error(`The camt.054 parser's worker stopped (exit code ${code}) before answering.`)),
      ),
    )
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
