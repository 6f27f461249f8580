import { parseMaskedAccount } from './bank-account.js'
import { findReferences, referencedInvoiceIds, type TransactionReferences } from './find-references.js'
import type { InvoiceIndex } from './invoice-index.js'
import { compactReference } from './invoice-number.js'
import { formatUnits, toUnits } from './money.js'
import { nameKey } from './normalize-name.js'
import { statedFee } from './residuals.js'
import { beyondHorizon, returnFeeEvidence } from './return-guards.js'
import { suggestionKey } from './suggest.js'
import { unwrapRemittance } from './unwrap-remittance.js'
import { REFERENCE_FIELDS, type Evidence, type MatchTransaction, type PaymentReturn } from './types.js'

/** ISO 20022 return and reject reasons (SEPA) and NACHA return codes, with what they mean. */
export const RETURN_REASONS: ReadonlyMap<string, string> = new Map([
  ['AC01', 'incorrect account number'],
  ['AC04', 'closed account'],
  ['AC06', 'blocked account'],
  ['AG01', 'transaction forbidden'],
  ['AG02', 'invalid bank operation code'],
  ['AM04', 'insufficient funds'],
  ['AM05', 'duplication'],
  ['BE05', 'unrecognised initiating party'],
  ['CUST', 'requested by the customer'],
  ['DUPL', 'duplicate payment'],
  ['FOCR', 'following a cancellation request'],
  ['FRAD', 'fraudulent origin'],
  ['MD01', 'no mandate'],
  ['MD06', 'refund requested by the debtor'],
  ['MD07', 'debtor deceased'],
  ['MS02', 'refused by the debtor'],
  ['MS03', 'reason not specified'],
  ['RC01', 'bank identifier incorrect'],
  ['RR01', 'missing debtor account or identification'],
  ['SL01', 'specific service offered by the debtor bank'],
  ['TECH', 'technical problem'],
  ['R01', 'insufficient funds (ACH)'],
  ['R02', 'account closed (ACH)'],
  ['R03', 'no account (ACH)'],
  ['R04', 'invalid account number (ACH)'],
  ['R05', 'unauthorised debit (ACH)'],
  ['R07', 'authorisation revoked (ACH)'],
  ['R08', 'payment stopped (ACH)'],
  ['R10', 'customer advises not authorised (ACH)'],
  ['R16', 'account frozen (ACH)'],
  ['R29', 'corporate customer advises not authorised (ACH)'],
])

const CODE =
  /(?<![A-Z0-9])(A[CGM]\d\d|BE\d\d|MD\d\d|MS\d\d|RC\d\d|RR\d\d|SL\d\d|CUST|DUPL|FOCR|FRAD|TECH|R\d\d)(?![A-Z0-9])/
// Return, reversal and chargeback in English, German, French, Spanish, Italian, Dutch, Finnish and Scandinavian.
// BACS: an ARUDD (Automated Return of Unpaid Direct Debits) item is an “unpaid” direct debit.
const WORDING =
  /\b(returns?|returned|reversal|reversed|chargebacks?|charge back|disputed?|unpaid|arudd|rueckbuchung|ruckbuchung|rucklastschrift|ruecklastschrift|lastschriftruckgabe|retoure?|rejet|rejete|impaye|remboursement|rembourse|devolucion|devuelto|rimborso|storno|stornierung|terugboeking|storting retour|palautus|tilbakeforing|aterbetalning|aterforing)\b/
/**
 * Goods sent back (“returned” in the business sense): a refund for them is a new payment out, not the bank
 * returning the customer's payment, so these words are no return wording.
 */
const GOODS_RETURNED =
  /\b(returned goods|goods returned|returns? of goods|goods return|returned items?|returned merchandise|merchandise return|retoure ware|warenretoure|warenrucksendung|warenruecksendung|rucksendung|ruecksendung|retour (?:de )?marchandises?|marchandises? retournees?|devolucion de (?:mercancias?|mercaderias?|productos?)|reso (?:merce|merci)|merce resa)\b/g

/** Refund words of WORDING (not return, reversal or chargeback): with goods sent back, the refund is for them. */
const REFUND_WORDS = /\b(remboursement|rembourse|rimborso|devolucion|devuelto|palautus|aterbetalning)\b/g

function plainText(transaction: MatchTransaction): string {
  return REFERENCE_FIELDS.map((field) => unwrapRemittance(transaction[field] ?? ''))
    .join(' ')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
}

/** What in the outflow's text says money went back: a return reason code, or the word for it. */
export function returnSignals(outflow: MatchTransaction): Evidence[] {
  const text = plainText(outflow)
  const signals: Evidence[] = []
  const code = CODE.exec(text.toUpperCase())?.[1]
  if (code && (RETURN_REASONS.has(code) || !code.startsWith('R'))) {
    signals.push({
      code: 'return_reason',
      points: 0,
      text: `return reason ${code}${RETURN_REASONS.has(code) ? `: ${RETURN_REASONS.get(code)}` : ''}`,
    })
  }
  const lower = text.toLowerCase()
  const goods = lower.replace(GOODS_RETURNED, ' ')
  // Beside goods sent back, a refund word names the refund for them, not a payment coming back.
  const word = WORDING.exec(goods === lower ? lower : goods.replace(REFUND_WORDS, ' '))?.[1]
  if (word) signals.push({ code: 'return_wording', points: 0, text: `the text says “${word}”` })
  return signals
}

function samePayer(a: MatchTransaction, b: MatchTransaction): string | null {
  const accountA = parseMaskedAccount(a.counterpartyAccountMasked)
  const accountB = parseMaskedAccount(b.counterpartyAccountMasked)
  if (accountA && accountB && accountA.compact === accountB.compact)
    return `the same account ${a.counterpartyAccountMasked}`
  const nameA = nameKey(a.counterpartyName)
  const nameB = nameKey(b.counterpartyName)
  if (nameA && nameB && nameA.base === nameB.base) return `the same counterparty “${b.counterpartyName}”`
  return null
}

/**
 * A direct debit's mandate reference and end-to-end id, as SEPA (`MREF+`, `EREF+`), camt (`Mandate ID`,
 * `End-to-end ID`) and BACS texts label them: a return may quote only one of them.
 */
const LABELLED_ID =
  /(?:MREF|EREF|KREF|MANDATE(?:[ -]?(?:REF(?:ERENCE)?|ID))?|MANDATSREF(?:ERENZ)?|END[ -]?TO[ -]?END(?:[ -]?ID)?|E2E(?:[ -]?ID)?)\s*[+:=#]?\s*([A-Z0-9][A-Z0-9./-]{5,34})/gi

function labelledIds(transaction: MatchTransaction): string[] {
  const ids: string[] = []
  for (const field of REFERENCE_FIELDS) {
    for (const match of (transaction[field] ?? '').matchAll(LABELLED_ID)) {
      const value = match[1] as string
      if (!/^NOTPROVIDED$/i.test(value) && /\d/.test(value)) ids.push(value)
    }
  }
  return ids
}

/**
 * The outflow quotes a reference of the inflow (its payment reference or the bank's, or a direct debit's mandate
 * reference or end-to-end id, 6 characters or more).
 */
function quotes(outflow: MatchTransaction, inflow: MatchTransaction): string | null {
  const text = compactReference(REFERENCE_FIELDS.map((field) => outflow[field] ?? '').join(' '))
  for (const value of [
    inflow.paymentReference,
    inflow.bankReference,
    inflow.customerReference,
    ...labelledIds(inflow),
  ]) {
    const compact = value ? compactReference(value) : ''
    if (compact.length >= 6 && text.includes(compact)) return value as string
  }
  return null
}

export type ReturnInput = {
  /** Active outflows, in canonical order. */
  outflows: readonly MatchTransaction[]
  /** Active inflows with what their references named. */
  inflows: ReadonlyArray<{
    transaction: MatchTransaction
    references: TransactionReferences
    invoiceIds: string[]
  }>
  index: InvoiceIndex
  rejected: ReadonlySet<string>
  /** An inflow booked more than this many days before the outflow is never returned without a person. */
  horizonDays: number
}

type Inflow = ReturnInput['inflows'][number]

/**
 * What earlier outflows took back of each inflow: all of it (`whole`), or parts that add up to less (`parts`).
 */
type Taken = { whole: Set<string>; parts: Map<string, bigint> }

/** The earlier inflows of the outflow's currency it may return, latest first. */
function earlierInflows(
  input: ReturnInput,
  outflow: MatchTransaction,
  returned: ReadonlySet<string>,
  fits: (amount: bigint, id: string) => boolean,
): Inflow[] {
  return input.inflows
    .filter(
      ({ transaction }) =>
        !returned.has(transaction.id) &&
        transaction.currency === outflow.currency &&
        fits(toUnits(transaction.amount), transaction.id) &&
        (transaction.postedDate ?? '') <= (outflow.postedDate ?? '\uffff') &&
        !input.rejected.has(suggestionKey(outflow.id, [transaction.id])),
    )
    .reverse()
}

/**
 * Rule 5 of issue 15: an outflow that returns an earlier inflow of the same amount and currency. It does when it
 * names an invoice the inflow named; or when it comes from the same payer (account or name) or quotes the inflow's
 * reference, and says it is a return (a reason code or the word). Failing that, an outflow for less that says it is
 * a return and names an invoice the inflow paid or quotes the inflow's reference returns part of it (`partial`).
 * The latest earlier inflow is the one returned; an inflow is returned whole once, or in parts (two partial
 * chargebacks, say) that add up to less than it, never both; a return a person rejected is not made again.
 */
export function findReturns(input: ReturnInput): PaymentReturn[] {
  const returns: PaymentReturn[] = []
  const taken: Taken = { whole: new Set(), parts: new Map() }
  for (const outflow of input.outflows) {
    const amount = -toUnits(outflow.amount)
    const signals = returnSignals(outflow)
    // Naming an invoice the inflow paid says which payment, not that it came back: without a reason code or
    // return wording an outflow is a payment (to a supplier, a refund for goods sent back), never a return.
    if (signals.length === 0) continue
    const named = new Set(referencedInvoiceIds(findReferences(input.index, outflow)))
    const whole = wholeReturn(input, outflow, amount, signals, named, taken)
    const found =
      whole ?? (signals.length > 0 ? partialReturn(input, outflow, amount, signals, named, taken) : null)
    if (!found) continue
    const id = found.inflowTransactionId
    if (found.partial) taken.parts.set(id, (taken.parts.get(id) ?? 0n) + amount)
    else taken.whole.add(id)
    returns.push(found)
  }
  return returns
}

/** A return of the whole inflow (same amount). */
function wholeReturn(
  input: ReturnInput,
  outflow: MatchTransaction,
  amount: bigint,
  signals: readonly Evidence[],
  named: ReadonlySet<string>,
  taken: Taken,
): PaymentReturn | null {
  // The inflow alone, or the inflow plus the return fee the text states (debited together).
  const fee = statedFee(outflow)?.units ?? null
  const fits = (units: bigint, id: string) =>
    (units === amount || (fee !== null && units + fee === amount)) && !taken.parts.has(id)
  for (const inflow of earlierInflows(input, outflow, taken.whole, fits)) {
    const shared = inflow.invoiceIds.filter((id) => named.has(id))
    const why: Evidence[] = []
    if (shared.length > 0) {
      const numbers = shared.map((id) => input.index.get(id)?.number ?? id).join(', ')
      why.push({
        code: 'return_names_invoice',
        points: 0,
        text: `the outflow names invoice ${numbers}, which the payment named`,
      })
    } else {
      const payer = samePayer(outflow, inflow.transaction)
      const quoted = quotes(outflow, inflow.transaction)
      if (payer) why.push({ code: 'return_same_payer', points: 0, text: `it goes back to ${payer}` })
      else if (quoted)
        why.push({
          code: 'return_quotes_payment',
          points: 0,
          text: `it quotes the payment’s reference ${quoted}`,
        })
      else continue
    }
    const units = toUnits(inflow.transaction.amount)
    if (units !== amount) why.push(returnFeeEvidence(amount - units, outflow.currency))
    const late = beyondHorizon(inflow.transaction, outflow, input.horizonDays)
    if (late) return heldReturn(outflow, inflow, units, [...why, ...signals, late])
    return {
      outflowTransactionId: outflow.id,
      inflowTransactionId: inflow.transaction.id,
      invoiceIds: inflow.invoiceIds,
      amount: formatUnits(units),
      partial: false,
      target: null,
      evidence: [
        returnEvidence(outflow, inflow, units, 'it returns the payment received'),
        ...why,
        ...signals,
        {
          code: 'return_reopens',
          points: 0,
          text: 'the payment’s allocations are reversed and its invoices open again',
        },
      ],
    }
  }
  return null
}

/**
 * A return a person decides (beyond the horizon): recorded like a partial return that does not say what it
 * reverses, so nothing is reversed and an `ambiguous_reference` on the outflow asks a person.
 */
function heldReturn(
  outflow: MatchTransaction,
  inflow: Inflow,
  amount: bigint,
  evidence: Evidence[],
): PaymentReturn {
  return {
    outflowTransactionId: outflow.id,
    inflowTransactionId: inflow.transaction.id,
    invoiceIds: inflow.invoiceIds,
    amount: formatUnits(amount),
    partial: true,
    target: null,
    evidence: [returnEvidence(outflow, inflow, amount, 'it may return the payment received'), ...evidence],
  }
}

function returnEvidence(outflow: MatchTransaction, inflow: Inflow, amount: bigint, what: string): Evidence {
  return {
    code: 'return',
    points: 0,
    text: `${formatUnits(amount)} ${outflow.currency} went back out${outflow.postedDate ? ` on ${outflow.postedDate}` : ''}: ${what}${inflow.transaction.postedDate ? ` on ${inflow.transaction.postedDate}` : ''} (${inflow.transaction.id})`,
  }
}

/**
 * A return of part of an inflow: the outflow says it is a return and names an invoice the inflow paid or quotes
 * the inflow's reference. It reopens the invoice it names among the inflow's, or the inflow's only invoice; when
 * it does not say which of several, `target` is null: a person decides, nothing is reversed.
 */
function partialReturn(
  input: ReturnInput,
  outflow: MatchTransaction,
  amount: bigint,
  signals: readonly Evidence[],
  named: ReadonlySet<string>,
  taken: Taken,
): PaymentReturn | null {
  // The first part is less than the inflow (all of it is a whole return); a later part may take the rest.
  const fits = (units: bigint, id: string) => {
    const before = taken.parts.get(id)
    return before === undefined ? units > amount : units >= amount + before
  }
  for (const inflow of earlierInflows(input, outflow, taken.whole, fits)) {
    const shared = inflow.invoiceIds.filter((id) => named.has(id))
    const quoted = quotes(outflow, inflow.transaction)
    if (shared.length === 0 && !quoted) continue
    const number = (id: string) => input.index.get(id)?.number ?? id
    const why: Evidence =
      shared.length > 0
        ? {
            code: 'return_names_invoice',
            points: 0,
            text: `the outflow names invoice ${shared.map(number).join(', ')}, which the payment named`,
          }
        : { code: 'return_quotes_payment', points: 0, text: `it quotes the payment’s reference ${quoted}` }
    const target =
      shared.length === 1
        ? (shared[0] as string)
        : shared.length === 0 && inflow.invoiceIds.length === 1
          ? (inflow.invoiceIds[0] as string)
          : null
    const partial: Evidence = {
      code: 'return_partial',
      points: 0,
      text: `it is less than the ${formatUnits(toUnits(inflow.transaction.amount))} received: ${
        target
          ? `${formatUnits(amount)} of what the payment paid invoice ${number(target)} is reversed and open again`
          : `the payment paid ${inflow.invoiceIds.length === 0 ? 'no invoice' : `invoices ${inflow.invoiceIds.map(number).join(', ')}`} and the return does not say which it reverses, so nothing is reversed`
      }`,
    }
    const late = beyondHorizon(inflow.transaction, outflow, input.horizonDays)
    if (late) return heldReturn(outflow, inflow, amount, [why, ...signals, late])
    return {
      outflowTransactionId: outflow.id,
      inflowTransactionId: inflow.transaction.id,
      invoiceIds: target ? [target] : inflow.invoiceIds,
      amount: formatUnits(amount),
      partial: true,
      target,
      evidence: [
        returnEvidence(outflow, inflow, amount, 'part of the payment received'),
        why,
        ...signals,
        partial,
      ],
    }
  }
  return null
}
