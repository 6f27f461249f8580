import { readFileSync } from 'node:fs'
import { Decimal } from 'decimal.js'
import { creditNoteProblems, type CreditNoteInput } from '../../src/credit-notes/index.js'
import {
  InvoiceIndex,
  matchConfig,
  paymentOutcome,
  matchPayments,
  type MatchConfigInput,
  type MatchPaymentsResult,
  type MatchCustomer,
  type MatchInvoice,
  type MatchTransaction,
  type PaymentOutcome,
} from '../../src/matcher/index.js'
import { judgePayment } from './judge-payment.js'
import type { RealisticExpect } from './realistic-book.js'
import type { RealisticResult } from './realistic-corpus.js'

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
  /** Credit notes of the case's invoices, netted as the API nets them (same customer and currency). */
  creditNotes?: CreditNoteInput[]
  expect: {
    outcome: ExpectedOutcome
    invoiceIds: string[]
    reasons: string[]
    /** Residual cases: every write-off the payment's allocations must make, and why. */
    writeOffs?: Array<{ invoiceId: string; amount: string; reason: string }>
    /** Residual cases: whether the named invoices end with nothing open. */
    closed?: boolean
  }
}

export type Corpus = {
  customers: MatchCustomer[]
  invoices: MatchInvoice[]
  cases: CorpusCase[]
  /** The documented configuration the residual cases (tag `residual`) run under (docs/closing.md). */
  residualConfig: MatchConfigInput
}

export type CaseResult = {
  case: CorpusCase
  outcome: ExpectedOutcome
  invoiceIds: string[]
  codes: string[]
  writeOffs: Array<{ invoiceId: string; amount: string; reason: string }>
  /** The named invoices end with nothing open. */
  closed: boolean
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

/** The case's invoice with the credit notes the API would net against it. */
function withCredits(invoice: MatchInvoice, entry: CorpusCase): MatchInvoice {
  let credits = new Decimal(0)
  for (const note of entry.creditNotes ?? []) {
    if (note.invoiceId !== invoice.id) continue
    const invoiceSide = {
      amount: invoice.amount.toString(),
      currency: invoice.currency,
      customerId: invoice.customerId ?? null,
      void: invoice.void === true,
    }
    if (creditNoteProblems(note, invoiceSide, credits.toFixed()).length === 0)
      credits = credits.plus(note.amount)
  }
  return credits.isZero() ? invoice : { ...invoice, credits: credits.toFixed() }
}

/** The engine's result for one case: its payment against the books (and its own prior transactions). */
export function matchCase(
  corpus: Corpus,
  entry: CorpusCase,
  config: MatchConfigInput = {},
): MatchPaymentsResult {
  const invoices = [
    ...corpus.invoices,
    ...(entry.invoices ?? []).map((invoice) => withCredits(invoice, entry)),
  ]
  const index = new InvoiceIndex(invoices, corpus.customers)
  return matchPayments({
    index,
    invoices,
    transactions: [...(entry.prior ?? []), entry.payment],
    config: matchConfig(entry.tags.includes('residual') ? { ...corpus.residualConfig, ...config } : config),
  })
}

/** Matches one case's payment against the books (and its own prior transactions). */
export function runCase(corpus: Corpus, entry: CorpusCase, config: MatchConfigInput = {}): CaseResult {
  const result = matchCase(corpus, entry, config)
  const outcome = paymentOutcome(result, entry.payment.id)
  const mine = result.allocations.filter((item) => item.transactionId === entry.payment.id)
  const found = {
    outcome: OUTCOMES[outcome.outcome],
    invoiceIds: outcome.invoiceIds,
    codes: outcome.evidence.map((item) => item.code),
    writeOffs: mine
      .filter((item) => item.writeOff !== '0')
      .map((item) => ({
        invoiceId: item.invoiceId,
        amount: item.writeOff,
        reason: item.writeOffReason ?? '',
      })),
    closed:
      outcome.invoiceIds.length > 0 &&
      outcome.invoiceIds.every(
        (id) => result.invoices.find((state) => state.invoiceId === id)?.amountOpen === '0',
      ),
  }
  const expected = entry.expect
  const sameInvoices = [...found.invoiceIds].sort().join() === [...expected.invoiceIds].sort().join()
  return {
    case: entry,
    ...found,
    wrongAutomatic: found.outcome === 'applied' && (expected.outcome !== 'applied' || !sameInvoices),
    outcomeRight: found.outcome === expected.outcome && (expected.outcome === 'none' || sameInvoices),
    reasonsRight:
      expected.reasons.every((code) => found.codes.includes(code)) &&
      (expected.writeOffs === undefined ||
        JSON.stringify(found.writeOffs) === JSON.stringify(expected.writeOffs)) &&
      (expected.closed === undefined || found.closed === expected.closed),
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

/**
 * Every case judged the way the realistic corpus is (test/support/judge-payment.ts): each automatic action right or
 * wrong, write-offs judged where the case names them (its residual cases).
 */
export function judgeCorpus(corpus: Corpus = loadCorpus(), config: MatchConfigInput = {}): RealisticResult[] {
  return corpus.cases.map((entry) => {
    const expect: RealisticExpect = {
      outcome: entry.expect.outcome,
      invoiceIds: entry.expect.invoiceIds,
      ...(entry.expect.writeOffs ? { writeOffs: entry.expect.writeOffs } : {}),
    }
    const judged = judgePayment(
      matchCase(corpus, entry, config),
      entry.payment.id,
      expect,
      () => undefined,
      entry.expect.writeOffs !== undefined,
    )
    return {
      case: { id: entry.id, title: entry.title, why: entry.title, tags: entry.tags },
      part: 'issue-15 corpus',
      paymentId: entry.payment.id,
      inBatch: false,
      expect,
      ...judged,
    }
  })
}
