import { readFileSync } from 'node:fs'
import {
  InvoiceIndex,
  matchConfig,
  paymentOutcome,
  reconcile,
  type MatchConfigInput,
  type MatchCustomer,
  type MatchInvoice,
  type MatchTransaction,
  type PaymentOutcome,
} from '../../src/reconcile/matcher/index.js'

/** What a case says must happen to its payment. */
export type ExpectedOutcome =
  'applied' | 'suggested' | 'unmatched' | 'ambiguous' | 'currency_mismatch' | 'returned' | 'none'

export type CorpusCase = {
  id: string
  title: string
  tags: string[]
  payment: MatchTransaction
  prior?: MatchTransaction[]
  invoices?: MatchInvoice[]
  expect: { outcome: ExpectedOutcome; invoiceIds: string[]; reasons: string[] }
}

export type Corpus = { customers: MatchCustomer[]; invoices: MatchInvoice[]; cases: CorpusCase[] }

export type CaseResult = {
  case: CorpusCase
  outcome: ExpectedOutcome
  invoiceIds: string[]
  codes: string[]
  /** The engine applied money where the case says it must not (or to other invoices). */
  wrongAutomatic: boolean
  outcomeRight: boolean
  reasonsRight: boolean
}

export const CORPUS_FILE = new URL('../../fixtures/matching/corpus.json', import.meta.url)

export function loadCorpus(): Corpus {
  return JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as Corpus
}

const OUTCOMES: Record<PaymentOutcome['outcome'], ExpectedOutcome> = {
  applied: 'applied',
  suggested_match: 'suggested',
  unmatched_payment: 'unmatched',
  ambiguous_reference: 'ambiguous',
  currency_mismatch: 'currency_mismatch',
  payment_returned: 'returned',
  none: 'none',
}

/** Matches one case's payment against the books (and its own prior transactions). */
export function runCase(corpus: Corpus, entry: CorpusCase, config: MatchConfigInput = {}): CaseResult {
  const invoices = [...corpus.invoices, ...(entry.invoices ?? [])]
  const index = new InvoiceIndex(invoices, corpus.customers)
  const result = reconcile({
    index,
    invoices,
    transactions: [...(entry.prior ?? []), entry.payment],
    config: matchConfig(config),
  })
  const outcome = paymentOutcome(result, entry.payment.id)
  const found = {
    outcome: OUTCOMES[outcome.outcome],
    invoiceIds: outcome.invoiceIds,
    codes: outcome.evidence.map((item) => item.code),
  }
  const expected = entry.expect
  const sameInvoices = [...found.invoiceIds].sort().join() === [...expected.invoiceIds].sort().join()
  return {
    case: entry,
    ...found,
    wrongAutomatic: found.outcome === 'applied' && (expected.outcome !== 'applied' || !sameInvoices),
    outcomeRight: found.outcome === expected.outcome && (expected.outcome === 'none' || sameInvoices),
    reasonsRight: expected.reasons.every((code) => found.codes.includes(code)),
  }
}

export type CorpusFigures = {
  cases: number
  wrongAutomatic: number
  shouldApply: number
  applied: number
  /** Share of the should-apply cases applied to the right invoices. */
  autoApplyRate: number
  outcomesRight: number
  reasonsRight: number
  results: CaseResult[]
}

export function evaluateCorpus(corpus: Corpus = loadCorpus(), config: MatchConfigInput = {}): CorpusFigures {
  const results = corpus.cases.map((entry) => runCase(corpus, entry, config))
  const shouldApply = results.filter((result) => result.case.expect.outcome === 'applied')
  const applied = shouldApply.filter((result) => result.outcomeRight).length
  return {
    cases: results.length,
    wrongAutomatic: results.filter((result) => result.wrongAutomatic).length,
    shouldApply: shouldApply.length,
    applied,
    autoApplyRate: shouldApply.length === 0 ? 1 : applied / shouldApply.length,
    outcomesRight: results.filter((result) => result.outcomeRight).length,
    reasonsRight: results.filter((result) => result.reasonsRight).length,
    results,
  }
}
