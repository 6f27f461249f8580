/**
 * Runs the realistic corpus: every case file of fixtures/matching/held-out/, held-out-2/ and realistic/
 * against its generated book. The book's InvoiceIndex is built once; a case that adds invoices or replaces
 * customers gets its own. Each case is one matchPayments run over the whole book (every open invoice is a
 * candidate, as in a team's books) with the case's earlier lines, its payment and its batch.
 */
import { readdirSync } from 'node:fs'
import { Decimal } from 'decimal.js'
import {
  InvoiceIndex,
  matchConfig,
  matchPayments,
  type MatchConfigInput,
  type MatchInvoice,
  type MatchPaymentsResult,
} from '../../src/matcher/index.js'
import { judgePayment, type Judgement } from './judge-payment.js'
import {
  loadBook,
  loadCaseFile,
  type Book,
  type RealisticCase,
  type RealisticExpect,
} from './realistic-book.js'

export const HELD_OUT_DIR = new URL('../../fixtures/matching/held-out/', import.meta.url)
/** The second frozen batch, aimed at rules 12–14 and the advance on a named invoice. */
export const HELD_OUT_2_DIR = new URL('../../fixtures/matching/held-out-2/', import.meta.url)
/** The frozen parts, each a directory whose files are pinned by test/matching/held-out-frozen.test.ts. */
export const HELD_OUT_PARTS = [
  { part: 'held-out', dir: HELD_OUT_DIR },
  { part: 'held-out-2', dir: HELD_OUT_2_DIR },
] as const
export const REALISTIC_DIR = new URL('../../fixtures/matching/realistic/', import.meta.url)

export type RealisticResult = Judgement & {
  case: Pick<RealisticCase, 'id' | 'title' | 'why' | 'tags'>
  /** `held-out`, `held-out-2` or the realistic file's name. */
  part: string
  paymentId: string
  /** A payment of the case's batch rather than the case's own. */
  inBatch: boolean
  expect: RealisticExpect
}

export type LoadedBook = { book: Book; index: InvoiceIndex; byId: Map<string, MatchInvoice> }

function caseFiles(dir: URL): URL[] {
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'))
  } catch {
    return []
  }
  return names.sort().map((name) => new URL(name, dir))
}

/** The realistic corpus's parts: the held-out parts first, then the others, each with its cases. */
export function loadRealisticCorpus(): Array<{ part: string; book: string; cases: RealisticCase[] }> {
  const held = HELD_OUT_PARTS.flatMap(({ part, dir }) =>
    caseFiles(dir).map((url) => ({ part, ...loadCaseFile(url) })),
  )
  const rest = caseFiles(REALISTIC_DIR).map((url) => ({
    part:
      url.pathname
        .split('/')
        .pop()
        ?.replace(/\.json$/, '') ?? '',
    ...loadCaseFile(url),
  }))
  return [...held, ...rest]
}

/** The open amount a case expects an invoice to receive when it names no allocations: all of it, less write-offs. */
function fullAmount(
  invoice: MatchInvoice | undefined,
  expect: RealisticExpect,
  id: string,
): string | undefined {
  if (!invoice) return undefined
  const off = expect.writeOffs?.find((item) => item.invoiceId === id)?.amount ?? '0'
  return new Decimal(invoice.amount)
    .minus(invoice.credits ?? 0)
    .minus(off)
    .toFixed()
}

/** The engine's result for one realistic case: its earlier lines, its payment and its batch against the book. */
export function matchRealisticCase(
  loaded: LoadedBook,
  entry: RealisticCase,
  config: MatchConfigInput = {},
): MatchPaymentsResult {
  const extra = entry.invoices ?? []
  const invoices = extra.length > 0 ? [...loaded.book.invoices, ...extra] : loaded.book.invoices
  let index = loaded.index
  if (extra.length > 0 || entry.customers) {
    const replaced = new Map((entry.customers ?? []).map((customer) => [customer.id, customer]))
    index = new InvoiceIndex(
      invoices,
      loaded.book.customers.map((customer) => replaced.get(customer.id) ?? customer),
    )
  }
  return matchPayments({
    index,
    invoices,
    transactions: [...(entry.prior ?? []), ...paymentsOf(entry).map((item) => item.payment)],
    config: matchConfig(config),
  })
}

function paymentsOf(
  entry: RealisticCase,
): Array<{ payment: RealisticCase['payment']; expect: RealisticExpect }> {
  return [{ payment: entry.payment, expect: entry.expect }, ...(entry.batch ?? [])]
}

export function runRealisticCase(
  loaded: LoadedBook,
  entry: RealisticCase,
  part: string,
  config: MatchConfigInput = {},
): RealisticResult[] {
  const result = matchRealisticCase(loaded, entry, config)
  const extra = entry.invoices ?? []
  const invoiceOf = (id: string) => loaded.byId.get(id) ?? extra.find((invoice) => invoice.id === id)
  return paymentsOf(entry).map(({ payment, expect }) => ({
    case: entry,
    part,
    paymentId: payment.id,
    inBatch: payment !== entry.payment,
    expect,
    ...judgePayment(result, payment.id, expect, (id) => fullAmount(invoiceOf(id), expect, id)),
  }))
}

const books = new Map<string, LoadedBook>()

/** A book loaded once, with its index. */
export function loaded(name: string): LoadedBook {
  let found = books.get(name)
  if (!found) {
    const book = loadBook(name)
    found = {
      book,
      index: new InvoiceIndex(book.invoices, book.customers),
      byId: new Map(book.invoices.map((invoice) => [invoice.id, invoice])),
    }
    books.set(name, found)
  }
  return found
}

/** Every payment of every realistic case, judged. */
export function evaluateRealistic(config: MatchConfigInput = {}): RealisticResult[] {
  return loadRealisticCorpus().flatMap(({ part, book, cases }) =>
    cases.flatMap((entry) => runRealisticCase(loaded(book), entry, part, config)),
  )
}
