import type { Payment } from './payment.js'
import { dateSpans, overlaps } from './date-spans.js'
import { issuedAfterPayment } from './date-evidence.js'
import { hasUnexplainedConflict, payerCode, POINTS, reasonsOf, score } from './evidence.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { openPositionsOf, type MatchContext } from './match-context.js'
import { centsOf, formatUnits } from './money.js'
import { wordBefore } from './number-labels.js'
import { OTHER_LABELS } from './reference-words.js'
import { compareAge } from './invoice-age.js'
import { advanceWording, awaitingInvoice, unknownInvoiceNumbers } from './not-yet-invoiced.js'
import { suggestionKey, suggestMatch } from './suggest.js'
import { tokenize } from './tokenize.js'
import { remittancePurpose } from './unwrap-remittance.js'
import { referenceTexts, type Evidence, type MatchTransaction } from './types.js'

/**
 * Numbers in the reference fields that look like a document number (4 digits or more) and are explained by
 * nothing: not a date, not labelled as a customer, order or trace number, not the amount. A payment carrying one
 * may be for a document the books do not know yet, so the payer's amount alone never applies it.
 */
export function unexplainedNumbers(transaction: MatchTransaction): string[] {
  const amount = String(transaction.amount).replace(/^-/, '').split('.')[0] ?? ''
  const found: string[] = []
  for (const written of referenceTexts(transaction)) {
    if (!written) continue
    // The bank's own subfields (an MT940 line's prima nota, BIC, IBAN) are no document numbers.
    const text = remittancePurpose(written)
    const tokens = tokenize(text)
    let dates: ReturnType<typeof dateSpans> | null = null
    for (let at = 0; at < tokens.length; at++) {
      const start = tokens.start(at)
      const end = tokens.end(at)
      // A token of digits is nothing but digits as written: four or more of them, read without a slice.
      if (end - start < 4 || !tokens.isDigits(at) || tokens.key(at) === amount) continue
      // The label may stand before a word for number (`Auftrags-Nr. 2600716`).
      const before = wordBefore(tokens, at)
      if (before !== null && OTHER_LABELS.has(before)) continue
      dates ??= dateSpans(text)
      if (overlaps(dates, start, end)) continue
      found.push(text.slice(start, end))
    }
  }
  return found
}

/**
 * Rules 4 and 5 for a payment no reference explains. A verified payer (its account in the master data, or a link a
 * person's match taught) whose customer has exactly one open invoice of exactly the amount, with no unexplained
 * document number in the text, is applied. Otherwise the smallest exact set of the payer's open invoices is
 * suggested (allocated only above `autoConfirmThreshold`, off by default): a name alone never applies money.
 */
export function allocateByPayer(
  context: MatchContext,
  payment: Payment,
  evidence: readonly Evidence[],
): void {
  const { allocator, config, rejected } = context
  const { transaction, amount } = payment
  const payer = context.payer(payment)
  // The payer's open invoices are read by position: a ledger is made only for one the payment may pay.
  const set = context.ledgers
  const positions = openPositionsOf(context, payer.customers, transaction.currency)
  const candidates = positions.map((at) => ({
    invoice: set.factsAt(at).invoice,
    available: set.openForTentative(at),
  }))
  const payerItem: Evidence[] =
    payer.customers.length > 0
      ? [
          {
            code: payerCode(payer),
            points: payer.verified ? POINTS.payerVerified : POINTS.payerName,
            text: payer.text,
          },
        ]
      : [{ code: payerCode(payer), points: 0, text: payer.text }]
  if (waitsForInvoice(context, payment, payerItem)) return
  const cents = centsOf(amount)
  const exact = positions.filter((at) => set.openIs(at, amount, cents, true))
  if (payer.verified && payer.customers.length === 1 && exact.length === 1) {
    const numbers = unexplainedNumbers(transaction)
    const only = set.at(exact[0] as number)
    const items: Evidence[] = [
      { code: 'no_reference', points: 0, text: 'no reference field names a known invoice' },
      ...payerItem,
      {
        code: 'amount_unique',
        points: POINTS.payerOnly,
        text: `${formatUnits(amount)} is exactly what invoice ${only.invoice.number} has open, and no other open invoice of the customer`,
      },
      ...evidence,
    ]
    if (numbers.length > 0) {
      items.push({
        code: 'conflict_document_number',
        points: 0,
        text: `the text holds ${numbers.join(', ')}, which names no known invoice`,
        conflict: 'unexplained',
      })
    }
    const late = issuedAfterPayment(only.invoice, transaction, config.invoiceDateGraceDays)
    if (late) items.push(late)
    const total = score(items)
    if (!hasUnexplainedConflict(items) && total >= config.autoApplyThreshold) {
      allocator.distribute(payment, amount, [only], () => ({
        origin: { rule: 'payer', field: null, madeBy: 'engine', confidence: total },
        reference: null,
        via: null,
        evidence: items,
      }))
      return
    }
    if (!rejected.has(suggestionKey(transaction.id, [only.invoice.id]))) {
      allocator.raise('suggested_match', payment, {
        invoiceIds: [only.invoice.id],
        amount: formatUnits(amount),
        confidence: Math.min(total, config.autoApplyThreshold - 1),
        reasons: reasonsOf(items),
        evidence: items,
      })
      return
    }
  }
  const suggestion = suggestMatch({ transactionId: transaction.id, amount, candidates, config, rejected })
  if (!suggestion) {
    const items: Evidence[] = [
      { code: 'no_reference', points: 0, text: 'no reference field names a known invoice' },
      ...evidence,
      ...payerItem,
      {
        code: 'no_exact_set',
        points: 0,
        text:
          candidates.length === 0
            ? 'no open invoice of the counterparty in this currency'
            : `no set of at most ${config.maxSuggestionSetSize} open invoices of the counterparty sums to the amount`,
      },
    ]
    allocator.raise('unmatched_payment', payment, {
      amount: formatUnits(amount),
      reasons: reasonsOf(items),
      evidence: items,
    })
    return
  }
  const items: Evidence[] = [
    ...evidence,
    ...suggestion.reasons.map((text) => ({ code: 'suggestion', points: 0, text })),
    ...(payer.customers.length > 1 || payer.how === 'account_tail' ? payerItem : []),
  ]
  const threshold = config.autoConfirmThreshold
  const late = suggestion.invoiceIds.flatMap(
    (id) =>
      issuedAfterPayment(context.ledgers.get(id)!.invoice, transaction, config.invoiceDateGraceDays) ?? [],
  )
  items.push(...late)
  if (threshold === null || suggestion.confidence < threshold || late.length > 0) {
    allocator.raise('suggested_match', payment, {
      invoiceIds: suggestion.invoiceIds,
      amount: formatUnits(amount),
      confidence: suggestion.confidence,
      reasons: reasonsOf(items),
      evidence: items,
    })
    return
  }
  const chosen = suggestion.invoiceIds
    .map((invoiceId) => context.ledgers.get(invoiceId) as InvoiceLedger)
    .sort((a, b) => compareAge(a.invoice, b.invoice))
  const origin = {
    rule: 'suggestion',
    field: null,
    madeBy: 'engine',
    confidence: suggestion.confidence,
  } as const
  allocator.distribute(payment, amount, chosen, () => ({
    origin,
    reference: null,
    via: null,
    evidence: items,
  }))
}

/**
 * Rule 6: a payment for something that is not an invoice yet (advance or down-payment wording, or an invoice
 * number the books do not have) is never applied to, nor suggested for, another invoice: it waits as an
 * `unmatched_payment`, and is matched again when an invoice with that number arrives (the store reaches it by the
 * number's keys).
 */
function waitsForInvoice(context: MatchContext, payment: Payment, payerItem: readonly Evidence[]): boolean {
  const advance = advanceWording(payment.transaction)
  const unknown = unknownInvoiceNumbers(context.index, payment.transaction)
  if (!advance && unknown.length === 0) return false
  const items: Evidence[] = [
    { code: 'no_reference', points: 0, text: 'no reference field names a known invoice' },
    ...payerItem,
  ]
  if (advance) items.push(advance)
  if (unknown.length > 0) items.push(awaitingInvoice(unknown))
  context.allocator.raise('unmatched_payment', payment, {
    amount: formatUnits(payment.amount),
    reasons: reasonsOf(items),
    evidence: items,
  })
  return true
}
