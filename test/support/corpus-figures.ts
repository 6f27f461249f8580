/**
 * The figures `npm run eval:matching` prints for a part of the corpus, from judged payments
 * (test/support/judge-payment.ts): wrong automatic actions by kind, the auto-apply rate among the should-apply
 * cases, returns, suggestion accuracy and "nothing done", and every payment that came out otherwise.
 */
import type { WrongKind } from './judge-payment.js'
import type { RealisticResult } from './realistic-corpus.js'

export type Figures = {
  payments: number
  cases: number
  wrong: number
  wrongByKind: Record<WrongKind, number>
  /** Payments with a wrong automatic action. */
  wrongPayments: RealisticResult[]
  shouldApply: number
  appliedRight: number
  /** Should-apply payments not applied exactly as the case says. */
  notApplied: RealisticResult[]
  shouldReturn: number
  returnedRight: number
  /** Cases a person should decide with a proposal: how many the engine proposed, and exactly right. */
  shouldSuggest: number
  suggested: number
  suggestedRight: number
  /** Nothing proposed at all, by what the case says should happen. */
  nothingDone: Record<string, number>
  /** Every payment whose outcome differs from the case's, or with a wrong action. */
  otherwise: RealisticResult[]
}

export function figuresOf(results: readonly RealisticResult[]): Figures {
  const wrongByKind: Record<WrongKind, number> = { application: 0, amount: 0, write_off: 0, return: 0 }
  for (const result of results) for (const item of result.wrong) wrongByKind[item.kind]++
  const shouldApply = results.filter((result) => result.expect.outcome === 'applied')
  const shouldSuggest = results.filter((result) => result.expect.outcome === 'suggested')
  const nothingDone: Record<string, number> = {}
  for (const result of results)
    if (result.nothingDone) nothingDone[result.expect.outcome] = (nothingDone[result.expect.outcome] ?? 0) + 1
  return {
    payments: results.length,
    cases: new Set(results.map((result) => result.case.id)).size,
    wrong: Object.values(wrongByKind).reduce((sum, count) => sum + count, 0),
    wrongByKind,
    wrongPayments: results.filter((result) => result.wrong.length > 0),
    shouldApply: shouldApply.length,
    appliedRight: shouldApply.filter((result) => result.appliedRight).length,
    notApplied: shouldApply.filter((result) => !result.appliedRight),
    shouldReturn: results.filter((result) => result.expect.outcome === 'returned').length,
    returnedRight: results.filter((result) => result.returnedRight).length,
    shouldSuggest: shouldSuggest.length,
    suggested: shouldSuggest.filter(
      (result) => result.outcome === 'suggested' || result.outcome === 'ambiguous',
    ).length,
    suggestedRight: shouldSuggest.filter((result) => result.suggestedRight).length,
    nothingDone,
    otherwise: results.filter(
      (result) =>
        result.wrong.length > 0 ||
        (result.expect.outcome === 'applied' && !result.appliedRight) ||
        (result.expect.outcome === 'returned' && !result.returnedRight) ||
        (result.expect.outcome === 'suggested' && !result.suggestedRight) ||
        (!['applied', 'returned', 'suggested'].includes(result.expect.outcome) &&
          result.outcome !== result.expect.outcome),
    ),
  }
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)} %`

/** One payment that came out otherwise, on one line. */
export function otherwiseLine(result: RealisticResult): string {
  const expected = `${result.expect.outcome} [${result.expect.invoiceIds.join(',')}]`
  const raised = result.exceptions.filter((type) => type === 'overpayment')
  const got = `${result.outcome} [${result.invoiceIds.join(',')}]${raised.length > 0 ? ` (${raised.join(', ')})` : ''}`
  const wrong = result.wrong.map((item) => ` WRONG ${item.kind}: ${item.detail}`).join(';')
  return `  ${result.case.id}${result.inBatch ? ` (${result.paymentId})` : ''}: expected ${expected}, got ${got}${wrong}`
}

/** The printed report of one part; `listOtherwise` false leaves out the cases another part lists. */
export function reportLines(title: string, figures: Figures, listOtherwise = true): string[] {
  const kinds = Object.entries(figures.wrongByKind)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ')
  const nothing = Object.entries(figures.nothingDone)
    .sort()
    .map(([outcome, count]) => `${outcome} ${count}`)
    .join(', ')
  return [
    `== ${title}`,
    `cases                        ${figures.cases} (${figures.payments} payments)`,
    `wrong automatic actions      ${figures.wrong} (${kinds}) in ${figures.wrongPayments.length} payments`,
    `auto-applied (should apply)  ${figures.appliedRight} of ${figures.shouldApply} (${percent(figures.appliedRight, figures.shouldApply)})`,
    `returned (should return)     ${figures.returnedRight} of ${figures.shouldReturn}`,
    `suggested (should suggest)   ${figures.suggested} of ${figures.shouldSuggest}, the right invoices in ${figures.suggestedRight} (suggestion accuracy ${percent(figures.suggestedRight, figures.shouldSuggest)})`,
    `nothing done                 ${nothing || 'none'} (by what the case says)`,
    ...(listOtherwise && figures.otherwise.length > 0
      ? ['came out otherwise:', ...figures.otherwise.map(otherwiseLine)]
      : []),
  ]
}
