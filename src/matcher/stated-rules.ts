import type { TransactionReferences } from './find-references.js'
import { NO_EVIDENCE } from './evidence.js'
import { allocateLabelledForOthers, labelledPrintedForOthers } from './labelled-numbers.js'
import type { MatchContext } from './match-context.js'
import type { Payment } from './payment.js'
import { allocateByRemittance, remittanceContradiction } from './stated-remittance.js'
import type { Evidence } from './types.js'

type Named = Extract<TransactionReferences, { outcome: 'named' }>

/** Rules 12 and 14, which decide before the named invoices are weighed; whether one of them decided. */
export function decidedByStatedRules(context: MatchContext, payment: Payment, found: Named): boolean {
  return allocateByRemittance(context, payment, found) || allocateLabelledForOthers(context, payment, found)
}

/**
 * The limits of rules 12 and 14 for the rules that weigh named invoices: an X12 remittance that contradicts itself
 * or the books, and an invoice's printed number under another kind of label naming another customer's invoice.
 * Each is an unexplained conflict on every invoice named (so a person decides); empty when there is none.
 */
export function statedContradictions(
  context: MatchContext,
  payment: Payment,
  found: Named,
): readonly Evidence[] {
  const conflict =
    remittanceContradiction(context, payment, found) ?? labelledPrintedForOthers(context, payment, found)
  return conflict ? [conflict] : NO_EVIDENCE
}
