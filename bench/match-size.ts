/**
 * One size of `bench/match.ts`, in a process of its own: the open invoices of one book and their index, as a
 * matching worker holds them, so the heap (and V8's per-scavenge walk over its old-generation pages) is that book's
 * alone. Started by `bench/match.ts` with the size as its argument; it builds the index, answers `{ built }`, then
 * for each `{ transactions }` asked times one round and answers its `Timing`. It ends when its parent disconnects.
 */
import { InvoiceIndex, type MatchInvoice } from '../src/matcher/index.js'
import { customersOf, invoicesOf, matchOne, transactionPages } from './match-workload.js'

const PAGE_SIZE = 500

export type Timing = { wall: number; cpu: number }
export type SizeReply = { built: number } | Timing

/**
 * Seconds per transaction, by the wall clock and by the CPU time of this process (user + system, every thread,
 * GC included), of the matching only: each page of transactions is read from its rows just before it is matched,
 * and that reading is outside the clocks.
 */
function timeRound(index: InvoiceIndex, invoices: readonly MatchInvoice[], count: number): Timing {
  let allocations = 0
  let wall = 0n
  let cpu = 0
  for (const page of transactionPages(invoices, count, PAGE_SIZE)) {
    const cpuBefore = process.cpuUsage()
    const started = process.hrtime.bigint()
    for (const transaction of page) allocations += matchOne(index, transaction).allocations.length
    wall += process.hrtime.bigint() - started
    const cpuUsed = process.cpuUsage(cpuBefore)
    cpu += cpuUsed.user + cpuUsed.system
  }
  if (allocations === 0) throw new Error('the workload allocated nothing: the benchmark is broken')
  return { wall: Number(wall) / 1e9 / count, cpu: cpu / 1e6 / count }
}

function reply(message: SizeReply): void {
  if (!process.send) throw new Error('bench/match-size.ts is started by bench/match.ts, with an IPC channel')
  process.send(message)
}

const size = Number(process.argv[2])
const invoices = invoicesOf(size)
const built = process.hrtime.bigint()
const index = new InvoiceIndex(invoices, customersOf(size))
reply({ built: Number(process.hrtime.bigint() - built) / 1e6 })
process.on('message', ({ transactions }: { transactions: number }) => {
  reply(timeRound(index, invoices, transactions))
})
