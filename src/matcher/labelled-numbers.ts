import type { TransactionReferences } from './find-references.js'
import { customerKeyOf } from './invoice-facts.js'
import type { MatchContext } from './match-context.js'
import type { Payment } from './payment.js'
import { allocateByPayer } from './payer-decision.js'
import type { Evidence } from './types.js'

type Named = Extract<TransactionReferences, { outcome: 'named' }>

/**
 * Rule 14 (guard 3 for a verified payer): when every number the chosen field names stands under a label for
 * another kind of number (`Auftrags-Nr.`, `PO`, `Vertrags-Nr.`, …) or carries another document's prefix
 * (`DEVIS D-2026-118`), and names only invoices of customers other than the payer's, the payment names no invoice.
 * The number is not evidence for the other customer's invoice, and it does not keep the payer's own rules from
 * deciding (its one open invoice at the amount; advance wording waits), with what was set aside as evidence.
 * Returns whether the rule held (and the payer's rules decided).
 */
export function allocateLabelledForOthers(context: MatchContext, payment: Payment, found: Named): boolean {
  const evidence = labelledForOthers(context, payment, found)
  if (evidence) allocateByPayer(context, payment, evidence)
  return evidence !== null
}

/** A label for another kind of number before it, or another document's prefix on it (`D-2026-118`, `XINV-1001`). */
const OTHER_DOCUMENT: ReadonlySet<string> = new Set(['labelled', 'other_prefix'])
const labelOf = (hit: Named['hits'][number]) =>
  hit.conflicts.find((conflict) => OTHER_DOCUMENT.has(conflict.code))
const isLabelled = (hit: Named['hits'][number]) => labelOf(hit) !== undefined

function labelledForOthers(context: MatchContext, payment: Payment, found: Named): Evidence[] | null {
  // Most payments name a clean reference: that is decided before the payer is asked.
  if (found.others || !found.hits.every(isLabelled)) return null
  const payer = context.payer(payment)
  const own = payer.customers[0]
  if (!payer.verified || payer.customers.length !== 1 || own === undefined) return null
  const evidence: Evidence[] = []
  for (const hit of [...found.hits, ...found.setAside]) {
    const label = labelOf(hit)
    if (!label) return null
    for (const id of hit.invoiceIds) {
      if (customerKeyOf(context.allocator.ledger(id, payment.transaction.id).invoice) === own) return null
    }
    evidence.push({
      code: 'set_aside',
      points: 0,
      text: `“${hit.reference}” was not read as an invoice reference: ${label.text}; it names no invoice of the payer`,
    })
  }
  return evidence
}
