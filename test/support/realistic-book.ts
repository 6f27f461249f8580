/**
 * The realistic corpus's shapes: a generated book (fixtures/matching/books/, scripts/generate-matching-book.ts) and
 * case files against it (fixtures/matching/held-out/, fixtures/matching/realistic/). A case's expectation is what
 * is true for it, set when it was written from its construction, never from what the engine did.
 */
import { readFileSync } from 'node:fs'
import type { MatchCustomer, MatchInvoice, MatchTransaction } from '../../src/matcher/index.js'

/** A book's invoice: amounts are decimal strings as the JSON holds them. */
export type BookInvoice = MatchInvoice & { amount: string }

export type Book = {
  description: string
  seed: number
  today: string
  customers: MatchCustomer[]
  invoices: BookInvoice[]
  countries: Record<string, string>
  customerNumbers: Record<string, string>
  routing: Record<string, string>
  purchaseOrders: Record<string, string>
}

/**
 * What must happen to the case's payment. `applied`: the engine applies it, allocating exactly `allocations` (per
 * invoice; every invoice of `invoiceIds` in full when left out) and writing off exactly `writeOffs` (none when left
 * out). `returned`: the outflow returns `returns.inflowId` (its allocations are reversed). The others are a
 * person's: `suggested` (the right proposal is `invoiceIds`), `unmatched`, `ambiguous`, `currency_mismatch`, or
 * `none` (an outflow that is no return). Only `applied` and `returned` allow an automatic action.
 */
export type RealisticExpect = {
  outcome: 'applied' | 'suggested' | 'unmatched' | 'ambiguous' | 'currency_mismatch' | 'returned' | 'none'
  invoiceIds: string[]
  allocations?: Record<string, string>
  writeOffs?: Array<{ invoiceId: string; amount: string; reason: string }>
  returns?: { inflowId: string }
}

export type RealisticCase = {
  id: string
  title: string
  /** The real bank format the case imitates, and why its expectation is the true one. */
  why: string
  tags: string[]
  payment: MatchTransaction
  /** Earlier bank lines of the same run (an inflow a return returns, the first of two duplicates). */
  prior?: MatchTransaction[]
  /** Other payments of the same run, each with its own expectation (a batch). */
  batch?: Array<{ payment: MatchTransaction; expect: RealisticExpect }>
  /** Invoices this case adds to the book (an amended invoice, one issued later). */
  invoices?: BookInvoice[]
  /** Customers this case replaces in the book (what a person's matches taught them). */
  customers?: MatchCustomer[]
  expect: RealisticExpect
}

export type CaseFile = { description: string; book: string; cases: RealisticCase[] }

export const BOOKS_DIR = new URL('../../fixtures/matching/books/', import.meta.url)

export function loadBook(name: string): Book {
  return JSON.parse(readFileSync(new URL(`${name}.json`, BOOKS_DIR), 'utf8')) as Book
}

export function loadCaseFile(url: URL): CaseFile {
  return JSON.parse(readFileSync(url, 'utf8')) as CaseFile
}
