import { parseMaskedAccount } from './bank-account.js'
import { findReferences, referencedInvoiceIds, type TransactionReferences } from './find-references.js'
import type { InvoiceIndex } from './invoice-index.js'
import { compactReference } from './invoice-number.js'
import { formatUnits, toUnits } from './money.js'
import { nameKey } from './normalize-name.js'
import { suggestionKey } from './suggest.js'
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
const WORDING =
  /\b(returns?|returned|reversal|reversed|chargebacks?|charge back|disputed?|rueckbuchung|ruckbuchung|rucklastschrift|ruecklastschrift|lastschriftruckgabe|retoure?|rejet|rejete|impaye|remboursement|rembourse|devolucion|devuelto|rimborso|storno|stornierung|terugboeking|storting retour|palautus|tilbakeforing|aterbetalning|aterforing)\b/

function plainText(transaction: MatchTransaction): string {
  return REFERENCE_FIELDS.map((field) => transaction[field] ?? '')
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
  const word = WORDING.exec(text.toLowerCase())?.[1]
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

/** The outflow quotes a reference of the inflow (its payment reference or the bank's, 6 characters or more). */
function quotes(outflow: MatchTransaction, inflow: MatchTransaction): string | null {
  const text = compactReference(REFERENCE_FIELDS.map((field) => outflow[field] ?? '').join(' '))
  for (const value of [inflow.paymentReference, inflow.bankReference, inflow.customerReference]) {
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
}

/**
 * Rule 5 of issue 15: an outflow that returns an earlier inflow of the same amount and currency. It does when it
 * names an invoice the inflow named; or when it comes from the same payer (account or name) or quotes the inflow's
 * reference, and says it is a return (a reason code or the word). The latest earlier inflow is the one returned; an
 * inflow is returned once; a return a person rejected is not made again.
 */
export function findReturns(input: ReturnInput): PaymentReturn[] {
  const returns: PaymentReturn[] = []
  const returned = new Set<string>()
  for (const outflow of input.outflows) {
    const amount = -toUnits(outflow.amount)
    const signals = returnSignals(outflow)
    const named = new Set(referencedInvoiceIds(findReferences(input.index, outflow)))
    if (named.size === 0 && signals.length === 0) continue
    const candidates = input.inflows
      .filter(
        ({ transaction }) =>
          !returned.has(transaction.id) &&
          transaction.currency === outflow.currency &&
          toUnits(transaction.amount) === amount &&
          (transaction.postedDate ?? '') <= (outflow.postedDate ?? '\uffff') &&
          !input.rejected.has(suggestionKey(outflow.id, [transaction.id])),
      )
      .reverse()
    for (const inflow of candidates) {
      const shared = inflow.invoiceIds.filter((id) => named.has(id))
      const why: Evidence[] = []
      if (shared.length > 0) {
        const numbers = shared.map((id) => input.index.get(id)?.number ?? id).join(', ')
        why.push({
          code: 'return_names_invoice',
          points: 0,
          text: `the outflow names invoice ${numbers}, which the payment named`,
        })
      } else if (signals.length > 0) {
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
      } else {
        continue
      }
      returned.add(inflow.transaction.id)
      returns.push({
        outflowTransactionId: outflow.id,
        inflowTransactionId: inflow.transaction.id,
        invoiceIds: inflow.invoiceIds,
        evidence: [
          {
            code: 'return',
            points: 0,
            text: `${formatUnits(amount)} ${outflow.currency} went back out${outflow.postedDate ? ` on ${outflow.postedDate}` : ''}: it returns the payment received${inflow.transaction.postedDate ? ` on ${inflow.transaction.postedDate}` : ''} (${inflow.transaction.id})`,
          },
          ...why,
          ...signals,
          {
            code: 'return_reopens',
            points: 0,
            text: 'the payment’s allocations are reversed and its invoices open again',
          },
        ],
      })
      break
    }
  }
  return returns
}
