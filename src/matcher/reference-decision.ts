import type { Payment } from './payment.js'
import { customerKeyOf } from './invoice-facts.js'
import {
  distinctTexts,
  hasUnexplainedConflict,
  NO_EVIDENCE,
  payerEvidence,
  POINTS,
  reasonsOf,
  referenceEvidence,
  score,
} from './evidence.js'
import type { ReferenceHit, TransactionReferences } from './find-references.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { isRejected, openFor, openInvoicesOf, type MatchContext, type OpenExactly } from './match-context.js'
import { centsOf, formatUnits, toUnits } from './money.js'
import { amountIsToken, amountUnsupported, plausiblePart, shortOfSet, tokenAmount } from './amount-guards.js'
import { issuedAfterPayment } from './date-evidence.js'
import { otherFields, textGuards } from './field-guards.js'
import { explainShortfall, statedFeeMismatch } from './residuals.js'
import { advanceOnInvoice, instalmentEvidence, statedInstalment } from './stated-parts.js'
import { decidedByStatedRules, statedContradictions } from './stated-rules.js'
import type { Evidence, ReferenceField } from './types.js'

type Named = { ledger: InvoiceLedger; hit: ReferenceHit; field: ReferenceField }

const NO_GUARDS = { advance: null, awaiting: null } as const
const NO_LEDGERS: readonly InvoiceLedger[] = []

/** Amount evidence of a rest the payment leaves that a residual explains: it corroborates like the amount. */
const EXPLAINED_REST = new Set(['amount_tolerance', 'fee_stated', 'discount_in_time'])

/**
 * One invoice per hit. A number several invoices share is settled by corroboration: the payer's own invoice, then
 * the one whose open amount the payment equals. `ambiguous`: the ones still left.
 */
function resolve(
  context: MatchContext,
  payment: Payment,
  hit: ReferenceHit,
): { ledgers: InvoiceLedger[] } | { ambiguous: InvoiceLedger[] } {
  const all = hit.invoiceIds.map((id) => context.allocator.ledger(id, payment.transaction.id))
  if (all.length <= 1) return { ledgers: all }
  const sameCurrency = all.filter((ledger) => ledger.invoice.currency === payment.transaction.currency)
  const ledgers = sameCurrency.length > 0 ? sameCurrency : all
  if (ledgers.length === 1) return { ledgers }
  const payer = context.payer(payment)
  if (payer.customers.length === 1) {
    const own = ledgers.filter((ledger) => customerKeyOf(ledger.invoice) === payer.customers[0])
    if (own.length === 1) return { ledgers: own }
  }
  const exact = ledgers.filter(
    (ledger) => !ledger.invoice.void && openFor(payment, ledger) === payment.amount,
  )
  return exact.length === 1 ? { ledgers: exact } : { ambiguous: ledgers }
}

/** How the amount fits the named invoices: exactly (one, or the set's total), within the fee tolerance, or not. */
function amountEvidence(context: MatchContext, payment: Payment, live: readonly InvoiceLedger[]): Evidence {
  // A payment of one invoice's whole amount is written as that amount's text, formatted once per invoice.
  const only = live.length === 1 ? (live[0] as InvoiceLedger) : null
  const amount =
    only !== null && only.amount === payment.amount && payment.amount > 0n
      ? only.amountText
      : formatUnits(payment.amount)
  const open = live.reduce((sum, ledger) => sum + openFor(payment, ledger), 0n)
  if (open === payment.amount && open > 0n) {
    return live.length === 1
      ? {
          code: 'amount_exact',
          points: POINTS.amountExact,
          text: `${amount} is exactly what invoice ${live[0]?.invoice.number} has open`,
        }
      : {
          code: 'amount_set',
          points: POINTS.amountExact,
          text: `${amount} is exactly what the ${live.length} named invoices have open together`,
        }
  }
  // The rest is left on the last invoice (money pays them in order): a fee, discount or tolerance may explain it.
  const last = live[live.length - 1]
  const left = open - payment.amount
  if (last && left > 0n && left < openFor(payment, last)) {
    const explained = explainShortfall(context.config, payment, last, left)
    if (explained) return explained.evidence
    const mismatch = statedFeeMismatch(payment, left)
    if (mismatch) return mismatch
  }
  const relation = payment.amount < open ? 'less than' : 'more than'
  return {
    code: payment.amount < open ? 'amount_partial' : 'amount_over',
    points: 0,
    text: `${amount} is ${relation} the ${formatUnits(open)} the named invoices have open`,
  }
}

/**
 * Another open invoice of the same customer (the named invoice's, or the payer's) whose open amount is exactly
 * the payment: the payer may have quoted the wrong one of its invoices.
 */
function exactElsewhere(
  context: MatchContext,
  payment: Payment,
  named: readonly InvoiceLedger[],
): InvoiceLedger[] {
  const payer = context.payer(payment)
  // openInvoicesOf takes each customer once; a ledger is its invoice's only one.
  const customers: string[] = []
  for (const ledger of named) {
    const key = customerKeyOf(ledger.invoice)
    if (key) customers.push(key)
  }
  if (payer.customers.length === 1) customers.push(payer.customers[0] as string)
  return openInvoicesOf(context, customers, payment.transaction.currency, exactlyThe(payment)).filter(
    (ledger) => !named.includes(ledger),
  )
}

/** The open invoices whose open amount the payment is exactly. */
function exactlyThe(payment: Payment): OpenExactly {
  return { amount: payment.amount, cents: centsOf(payment.amount), tentative: payment.phase !== 'settled' }
}

/**
 * Rules 1–4 with evidence, after rules 12 and 14 (which decide first): every invoice the chosen field names is
 * weighed (how it was named, the amount, the payer, conflicts). All of them reaching the threshold with no
 * unexplained conflict are applied, in the order named; otherwise the likeliest set is suggested, never applied.
 */
export function allocateByReference(
  context: MatchContext,
  payment: Payment,
  found: Extract<TransactionReferences, { outcome: 'named' }>,
): void {
  if (decidedByStatedRules(context, payment, found)) return
  const { allocator } = context
  const { transaction } = payment
  const field = found.field
  // Mostly one invoice is named: the list is made at the first (one pushed onto an empty list gets room for 17).
  let listed: Named[] | null = null
  for (const hit of found.hits) {
    const resolved = resolve(context, payment, hit)
    if ('ambiguous' in resolved) {
      const ids = resolved.ambiguous.map((ledger) => ledger.invoice.id).sort()
      allocator.raise('ambiguous_reference', payment, {
        invoiceIds: ids,
        amount: formatUnits(payment.amount),
        reasons: [`${field} "${hit.reference}" names ${ids.length} invoices with that number`],
      })
      return
    }
    for (const ledger of resolved.ledgers) {
      if (listed === null) listed = [{ ledger, hit, field }]
      else if (!listed.some((item) => item.ledger === ledger)) listed.push({ ledger, hit, field })
    }
  }
  const named = listed ?? []
  const setAside: readonly Evidence[] =
    found.setAside.length === 0
      ? NO_EVIDENCE
      : found.setAside.map((hit) => ({
          code: 'set_aside',
          points: 0,
          text: `“${hit.reference}” was not read as an invoice reference: ${hit.conflicts.map((c) => c.text).join('; ') || 'its check digits do not add up'}`,
        }))
  let live = named.some(isVoid) ? named.filter((item) => !isVoid(item)) : named
  if (live.length === 0) return voidOnly(context, payment, field, named, setAside)
  if (live.some((item) => item.ledger.invoice.currency !== transaction.currency)) {
    const mismatched = live.filter((item) => item.ledger.invoice.currency !== transaction.currency)
    allocator.raise('currency_mismatch', payment, {
      invoiceIds: mismatched.map((item) => item.ledger.invoice.id),
      amount: formatUnits(payment.amount),
      reasons: mismatched.map(
        (item) =>
          `invoice ${item.ledger.invoice.number} is in ${item.ledger.invoice.currency}, the payment in ${transaction.currency}`,
      ),
    })
    return
  }
  const fields = found.others ? otherFields(context, payment, live, found.others) : null
  if (fields?.combined) live = fields.combined
  const ledgers = live.map((item) => item.ledger)
  const amount = amountEvidence(context, payment, ledgers)
  const amountFits = amount.code === 'amount_exact' || amount.code === 'amount_set'
  const corroborated = amountFits || EXPLAINED_REST.has(amount.code)
  const open = corroborated
    ? payment.amount
    : ledgers.reduce((sum, ledger) => sum + openFor(payment, ledger), 0n)
  const plausible = corroborated || plausiblePart(payment.amount, open)
  // Rule 4: several invoices, short of what they have open with nothing to explain it: the split is a proposal.
  const short =
    ledgers.length > 1 && amount.code === 'amount_partial' ? shortOfSet(payment, ledgers, open) : null
  const payer = context.payer(payment)
  const elsewhere = corroborated ? NO_LEDGERS : exactElsewhere(context, payment, ledgers)
  let anyCore = false
  for (const item of live) anyCore ||= item.hit.kind === 'core'
  const guards =
    amountFits && !anyCore ? NO_GUARDS : textGuards(context, payment, amountFits, corroborated, anyCore)
  const instalment = corroborated ? null : statedInstalment(transaction)
  const contradictions = statedContradictions(context, payment, found)
  const weighed = live.map(({ ledger, hit, field: where }) => {
    const evidence = referenceEvidence(hit, where, ledger.invoice.number)
    evidence.push(amount)
    for (const item of contradictions) evidence.push(item)
    if (amountFits && hit.invoiceWord) {
      // “Rechnung 20240102” for INV-2024-0102 paid to the cent: the word for invoice and the amount explain a
      // number that also reads as a date or a customer id.
      for (const item of evidence) {
        if (item.code === 'conflict_reads_as_date' || item.code === 'conflict_customer_number') {
          item.conflict = 'explained'
          item.text += '; the word for invoice before it and the exact amount say it is the invoice'
        }
      }
    }
    const byPayer = payerEvidence(payer, customerKeyOf(ledger.invoice), context.index.customers, amountFits)
    if (byPayer) evidence.push(byPayer)
    const payerAgrees = byPayer !== null && byPayer.points > 0
    const payerVerified = payerAgrees && byPayer.points >= POINTS.payerVerified
    if (hit.kind === 'core' && hit.checkDigits !== 'valid') {
      // Rule 2: a number core is taken only with corroboration: the amount, a verified payer, or the payer by
      // name at a plausible part of the amount; a short one needs the amount and the payer.
      const enough = hit.short
        ? corroborated && payerAgrees
        : corroborated || payerVerified || (payerAgrees && plausible)
      if (!enough) {
        evidence.push({
          code: 'uncorroborated',
          points: 0,
          text: hit.short
            ? 'a number core of fewer than 4 digits is taken only when the amount and the payer both agree'
            : 'a number core is taken only when the amount agrees, the payer is verified, or the payer is recognised by name and the amount is a plausible part',
          conflict: 'unexplained',
        })
      }
    } else if ((hit.kind === 'full' || hit.kind === 'swift') && payer.customers.length === 0 && !plausible) {
      evidence.push(amountUnsupported(formatUnits(payment.amount)))
    }
    if (!corroborated && tokenAmount(payment.amount, open))
      evidence.push(amountIsToken(formatUnits(payment.amount)))
    const late = issuedAfterPayment(ledger.invoice, transaction, context.config.invoiceDateGraceDays)
    if (late) evidence.push(late)
    const whole = payerVerified && hit.kind !== 'core'
    if (guards.advance && (hit.kind === 'core' || !amountFits))
      evidence.push(whole ? advanceOnInvoice(guards.advance, payment, hit, ledger) : guards.advance)
    const part =
      instalment && instalmentEvidence(instalment, payment, ledger, open, whole && live.length === 1)
    if (part) evidence.push(part)
    if (guards.awaiting) evidence.push(guards.awaiting)
    if (fields) evidence.push(fields.evidence)
    if (short) evidence.push(short)
    if (elsewhere.length > 0) {
      evidence.push({
        code: 'conflict_amount_elsewhere',
        points: 0,
        text: `invoice ${elsewhere.map((other) => other.invoice.number).join(', ')} of the same customer has exactly ${formatUnits(payment.amount)} open`,
        conflict: part?.code === 'instalment_stated' ? 'explained' : 'unexplained',
      })
    }
    for (const item of setAside) evidence.push(item)
    return { ledger, hit, evidence, score: score(evidence) }
  })
  const threshold = context.config.autoApplyThreshold
  let confidence = Infinity
  for (const item of weighed) confidence = Math.min(confidence, item.score)
  if (weighed.every((item) => item.score >= threshold && !hasUnexplainedConflict(item.evidence))) {
    allocator.distribute(payment, payment.amount, ledgers, (ledger) => {
      const item = weighed.find((candidate) => candidate.ledger === ledger)!
      const where = live.find((candidate) => candidate.ledger === ledger)?.field ?? field
      return {
        origin: { rule: 'reference', field: where, madeBy: 'engine', confidence: item.score },
        reference: item.hit.reference,
        via: item.hit.via,
        evidence: item.evidence,
      }
    })
    return
  }
  const dedup = distinctTexts(weighed)
  if (dedup.every((item) => item.conflict !== 'unexplained')) {
    dedup.push({
      code: 'below_threshold',
      points: 0,
      text: `the evidence scores ${confidence}, below the ${threshold} needed to apply it`,
    })
  }
  const alternative = alternativeFor(context, payment, elsewhere, dedup)
  const invoiceIds = alternative ? [alternative.invoice.id] : ledgers.map((ledger) => ledger.invoice.id)
  if (isRejected(context, transaction.id, invoiceIds)) {
    allocator.raise('unmatched_payment', payment, {
      amount: formatUnits(payment.amount),
      reasons: [...reasonsOf(dedup), 'a person rejected this suggestion'],
      evidence: dedup,
    })
    return
  }
  allocator.raise('suggested_match', payment, {
    invoiceIds,
    amount: formatUnits(payment.amount),
    confidence,
    reasons: reasonsOf(dedup),
    evidence: dedup,
  })
}

function isVoid(item: Named): boolean {
  return Boolean(item.ledger.invoice.void)
}

/**
 * The invoice to suggest instead of the one named: the only other open invoice of the customer with exactly the
 * amount, or, when the named invoice is another customer's, the payer's only open invoice with exactly the amount.
 */
function alternativeFor(
  context: MatchContext,
  payment: Payment,
  elsewhere: readonly InvoiceLedger[],
  evidence: Evidence[],
): InvoiceLedger | null {
  if (elsewhere.length === 1) {
    const [other] = elsewhere as [InvoiceLedger]
    evidence.push({
      code: 'suggest_exact_amount',
      points: 0,
      text: `suggesting invoice ${other.invoice.number}, whose open amount the payment equals`,
    })
    return other
  }
  const payer = context.payer(payment)
  if (!evidence.some((item) => item.code === 'conflict_other_customer') || payer.customers.length !== 1)
    return null
  const own = openInvoicesOf(context, payer.customers, payment.transaction.currency, exactlyThe(payment))
  if (own.length !== 1) return null
  const [mine] = own as [InvoiceLedger]
  evidence.push({
    code: 'suggest_payer_invoice',
    points: 0,
    text: `suggesting the payer’s own invoice ${mine.invoice.number}, whose open amount the payment equals`,
  })
  return mine
}

/**
 * Rule 6: a payment naming only void invoices. The invoice that replaced one (a live invoice of the same customer
 * with the same amount, nothing paid yet) is suggested; otherwise the payment is unmatched.
 */
function voidOnly(
  context: MatchContext,
  payment: Payment,
  field: ReferenceField,
  named: readonly Named[],
  setAside: readonly Evidence[],
): void {
  const { allocator } = context
  const voided = named.map((item) => item.ledger)
  const replacements = new Map<string, InvoiceLedger>()
  for (const ledger of voided) {
    const key = customerKeyOf(ledger.invoice)
    if (!key) continue
    for (const candidate of openInvoicesOf(context, [key], payment.transaction.currency)) {
      if (candidate.amount === ledger.amount && candidate.openForTentative() === candidate.amount) {
        replacements.set(candidate.invoice.id, candidate)
      }
    }
  }
  const numbers = voided.map((ledger) => ledger.invoice.number).join(', ')
  if (voided.length === 1 && replacements.size === 1) {
    const [replacement] = [...replacements.values()] as [InvoiceLedger]
    const evidence: Evidence[] = [
      { code: 'void_invoice', points: 0, text: `${field} names invoice ${numbers}, which is void` },
      {
        code: 'void_replacement',
        points: 0,
        text: `invoice ${replacement.invoice.number} of the same customer and amount (${formatUnits(replacement.amount)}) replaced it`,
      },
      ...setAside,
    ]
    if (!isRejected(context, payment.transaction.id, [replacement.invoice.id])) {
      allocator.raise('suggested_match', payment, {
        invoiceIds: [replacement.invoice.id],
        amount: formatUnits(payment.amount),
        confidence: toUnits(formatUnits(payment.amount)) === replacement.amount ? 70 : 50,
        reasons: reasonsOf(evidence),
        evidence,
      })
      return
    }
  }
  allocator.raise('unmatched_payment', payment, {
    invoiceIds: voided.map((ledger) => ledger.invoice.id),
    amount: formatUnits(payment.amount),
    reasons: [`${field} names only void invoices`],
  })
}
