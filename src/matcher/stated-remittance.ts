import { customerKeyOf } from './invoice-facts.js'
import type { TransactionReferences } from './find-references.js'
import { issuedAfterPayment } from './date-evidence.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { openFor, type MatchContext } from './match-context.js'
import { formatUnits } from './money.js'
import type { Payment } from './payment.js'
import { tokenKey } from './tokenize.js'
import type { Evidence } from './types.js'
import { ADJUSTMENT_REASONS, remittanceLines, type RemittanceLine } from './x12-remittance.js'

type Named = Extract<TransactionReferences, { outcome: 'named' }>
type Stated = {
  line: RemittanceLine
  ledger: InvoiceLedger
  reference: string
  via: Named['hits'][number]['via']
}

/** A number set aside as the whole part of an amount or as a number in a segment that names no invoice. */
const readsAsPartOfRemittance = (hit: Named['setAside'][number]) =>
  hit.conflicts.every((conflict) => conflict.code === 'reads_as_amount' || conflict.code === 'labelled')

const sameNumber = (a: string, b: string) => tokenKey(a).join(' ') === tokenKey(b).join(' ')

/** What the remittance says about the rest a line leaves open: the adjustments and discount stated for it. */
function statedRest(line: RemittanceLine): { units: bigint; text: string } | null {
  const parts = line.adjustments.map(
    (item) =>
      `${formatUnits(item.amount)} (ADX reason ${item.reason}${ADJUSTMENT_REASONS[item.reason] ? `, ${ADJUSTMENT_REASONS[item.reason]}` : ''})`,
  )
  if (line.discount !== 0n) parts.push(`a discount of ${formatUnits(line.discount)}`)
  const units = line.discount - line.adjustments.reduce((sum, item) => sum + item.amount, 0n)
  return parts.length > 0 ? { units, text: parts.join(' and ') } : null
}

/**
 * Rule 12 (stated remittance): an X12 820 remittance whose RMR*IV lines say what each invoice gets. It decides
 * only when a line pays less than the invoice's total, and only when every alternative is ruled out: each line
 * names the whole number of one live invoice (the field names no other), all of one customer (a payer bankrec
 * recognises is that customer), in the payment's currency, issued by the payment's date; the stated invoice total
 * is the invoice's amount; each paid amount is at most what is open; the paid amounts add up to the payment
 * exactly; and every short line states its reason (ADX adjustments, a discount) to the cent. Then each invoice
 * gets its stated amount, and the short rest stays open with the stated reason: it is not written off. Returns
 * whether it applied the payment.
 */
export function allocateByRemittance(context: MatchContext, payment: Payment, found: Named): boolean {
  const text = payment.transaction[found.field]
  if (!text || found.others || !found.setAside.every(readsAsPartOfRemittance)) return false
  const lines = remittanceLines(text)
  if (!lines.some((line) => line.invoiced !== null && line.paid < line.invoiced)) return false
  if (lines.length !== found.hits.length) return false
  const stated: Stated[] = []
  let total = 0n
  let customer: string | null = null
  for (const line of lines) {
    const hits = found.hits.filter((hit) => sameNumber(hit.reference, line.number))
    const hit = hits[0]
    if (hits.length !== 1 || !hit || hit.invoiceIds.length !== 1) return false
    const ledger = context.allocator.ledger(hit.invoiceIds[0] as string, payment.transaction.id)
    const { invoice } = ledger
    const key = customerKeyOf(invoice)
    if (invoice.void || invoice.currency !== payment.transaction.currency || key === null) return false
    if (!sameNumber(invoice.number, line.number) || (customer !== null && key !== customer)) return false
    if (stated.some((item) => item.ledger === ledger)) return false
    const open = openFor(payment, ledger)
    if (line.paid <= 0n || line.paid > open || line.invoiced !== ledger.amount) return false
    if (line.paid < open && statedRest(line)?.units !== line.invoiced - line.paid) return false
    if (issuedAfterPayment(invoice, payment.transaction, context.config.invoiceDateGraceDays)) return false
    customer = key
    total += line.paid
    stated.push({ line, ledger, reference: hit.reference, via: hit.via })
  }
  if (total !== payment.amount || customer === null) return false
  const payer = context.payer(payment)
  if (payer.customers.length > 0 && !payer.customers.includes(customer)) return false
  const sum: Evidence = {
    code: 'remittance_sum',
    points: 0,
    text: `the paid amounts of the ${lines.length} RMR lines add up to the payment exactly`,
  }
  for (const { line, ledger, reference, via } of stated) {
    const rest = line.paid < openFor(payment, ledger) ? statedRest(line) : null
    const evidence: Evidence[] = [
      {
        code: 'remittance_stated',
        points: 100,
        text: `the X12 remittance pays invoice ${ledger.invoice.number} ${formatUnits(line.paid)} of its ${ledger.amountText}`,
      },
      sum,
    ]
    if (rest) {
      evidence.push({
        code: 'remittance_adjustment',
        points: 0,
        text: `the remittance states ${rest.text} for it: the rest of ${formatUnits(rest.units)} stays open`,
      })
    }
    context.allocator.distribute(
      payment,
      line.paid,
      [ledger],
      () => ({
        origin: { rule: 'reference', field: found.field, madeBy: 'engine', confidence: 100 },
        reference,
        via,
        evidence,
      }),
      'keep_rest',
    )
  }
  return true
}

/**
 * Rule 12's guard for the other rules: an X12 remittance that contradicts itself or the books leaves the split to a
 * person, whatever the amounts add up to. A line contradicts when it names an invoice another line names too (a
 * resent segment), pays more than the invoice total it states or more than the invoice has open (money moved
 * between invoices), or pays less than the total it states without adjustments or a discount for the difference
 * (unless it pays exactly what is still open). Null when the field holds no remittance or it is consistent.
 */
export function remittanceContradiction(
  context: MatchContext,
  payment: Payment,
  found: Named,
): Evidence | null {
  const text = payment.transaction[found.field]
  const lines = text ? remittanceLines(text) : []
  if (lines.length === 0) return null
  for (const [index, line] of lines.entries()) {
    const hit = found.hits.find((item) => sameNumber(item.reference, line.number))
    const id = hit?.invoiceIds.length === 1 ? hit.invoiceIds[0] : undefined
    const open = id ? openFor(payment, context.allocator.ledger(id, payment.transaction.id)) : null
    const paid = formatUnits(line.paid)
    const invoiced = line.invoiced === null ? '' : formatUnits(line.invoiced)
    const problem =
      lines.findIndex((other) => sameNumber(other.number, line.number)) !== index
        ? `invoice ${line.number} is listed twice`
        : line.invoiced !== null && line.paid > line.invoiced
          ? `the line for invoice ${line.number} pays ${paid}, more than the ${invoiced} it states as invoiced`
          : open !== null && line.paid > open
            ? `the line for invoice ${line.number} pays ${paid}, more than the ${formatUnits(open)} it has open`
            : line.invoiced !== null &&
                line.paid < line.invoiced &&
                line.paid !== open &&
                (statedRest(line)?.units ?? 0n) !== line.invoiced - line.paid
              ? `the line for invoice ${line.number} pays ${paid} of ${invoiced} and states no adjustment or discount for the difference`
              : null
    if (problem) {
      return {
        code: 'conflict_remittance',
        points: 0,
        text: `the X12 remittance contradicts itself: ${problem}; the split is a person’s`,
        conflict: 'unexplained',
      }
    }
  }
  return null
}
