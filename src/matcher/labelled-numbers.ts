import type { TransactionReferences } from './find-references.js'
import { customerKeyOf } from './invoice-facts.js'
import type { MatchContext } from './match-context.js'
import { labelBefore } from './number-labels.js'
import type { Payment } from './payment.js'
import { allocateByPayer } from './payer-decision.js'
import type { Evidence } from './types.js'
import { unwrapRemittance } from './unwrap-remittance.js'

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

/**
 * Rule 14's limit: it drops only numbers that are not in an invoice's own printed form. A number printed the way an
 * invoice prints it (its prefix and separators, `INV-2026-00785`) under a label for another kind of number
 * (`Auftrags-Nr. INV-2026-00785`) still names that invoice; when the invoice is not the recognised payer's (another
 * customer, also a sister company of the same name or group), the label and the payer both speak against it: a
 * conflict the exact amount does not explain, so a person decides. Null when no such number is named.
 */
export function labelledPrintedForOthers(
  context: MatchContext,
  payment: Payment,
  found: Named,
): Evidence | null {
  const written = payment.transaction[found.field]
  if (!written || !found.hits.some((hit) => hit.kind === 'full')) return null
  const payer = context.payer(payment)
  if (payer.customers.length === 0) return null
  const text = unwrapRemittance(written)
  for (const hit of found.hits) {
    const at = hit.kind === 'full' ? text.indexOf(hit.reference) : -1
    const label = at < 0 ? null : labelBefore(text, at)
    if (!label || label.label === 'date') continue
    const others = hit.invoiceIds.some((id) => {
      const key = customerKeyOf(context.allocator.ledger(id, payment.transaction.id).invoice)
      return key === null || !payer.customers.includes(key)
    })
    if (others) {
      return {
        code: 'conflict_labelled_invoice',
        points: 0,
        text: `“${hit.reference}” follows “${label.word}”: the payer calls it ${label.name}, and the invoice it prints is another customer’s`,
        conflict: 'unexplained',
      }
    }
  }
  return null
}
