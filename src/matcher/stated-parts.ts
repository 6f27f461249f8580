import type { ReferenceHit } from './find-references.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { openFor } from './match-context.js'
import { formatUnits, toUnits } from './money.js'
import type { Payment } from './payment.js'
import { tokenKey } from './tokenize.js'
import { referenceTexts, type Evidence, type MatchTransaction } from './types.js'
import { unwrapRemittance } from './unwrap-remittance.js'

/** Instalment `n` of `m` as the text states it; `possible` is false for one that cannot exist (3 of 2, 1 of 1). */
export type StatedInstalment = { n: number; m: number; written: string; possible: boolean }

const PART_WORD = 'rate|teilzahlung|instal?lment|echeance|versement|termijn|plazo|rata'
const OF_WORD = 'von|aus|of|sur|van|de|di|/'
/**
 * `1. Rate von 2`, `Rate 1/3`, `instalment 2 of 4`, `échéance 1/2`, `1e échéance sur 3`, `termijn 1 van 2`; not a
 * date (`rata 01/02/2026`).
 */
const INSTALMENTS = [
  new RegExp(
    `\\b(\\d{1,2})\\s*(?:\\.|st|nd|rd|th|e|er|ere|eme|re)?\\s+(?:${PART_WORD})\\s*(?:${OF_WORD})\\s*(\\d{1,2})\\b(?![./-]?\\d)`,
  ),
  new RegExp(
    `\\b(?:${PART_WORD})\\s+(?:(?:no|nr|n)\\.?\\s*)?(\\d{1,2})\\s*(?:${OF_WORD})\\s*(\\d{1,2})\\b(?![./-]?\\d)`,
  ),
]

/**
 * Advance wording (with a share of it between, `ACOMPTE 30 % SUR FACTURE`) followed by a word for invoice: what
 * follows names the invoice the advance is paid on.
 */
const ADVANCE_ON_INVOICE =
  /\b(?:anzahlung|vorauszahlung|abschlagszahlung|abschlag|akonto|a[ -]?conto|acompte|avance|anticipo|acconto|advance payment|advance|pre-?payment|down ?payment|deposit|voorschot|aanbetaling|ennakkomaksu)\s+(?:\d{1,3}(?:[.,]\d{1,2})?\s*(?:%|pct|prozent|percent|pourcent)\s+)?(?:(?:sur|auf|zur|zu|der|die|on|for|against|to|of|op|van|de|la|su|sulla|della|alla|por|para|a)\s+){0,2}(?:facture|fact|rechnung|rg|invoice|inv|factuur|fattura|factura|lasku|faktura)\b\.?\s*(?:(?:no|nr|n°|nummer|number|num)\.?\s*)?(?=[a-z0-9])/g

const MARKS = /\p{M}+/gu

function plain(text: string): string {
  return unwrapRemittance(text).toLowerCase().normalize('NFKD').replace(MARKS, '')
}

/**
 * The instalment the payment's text states (`1. RATE VON 2`), if any, with m ≤ 36. It is possible when 1 ≤ n ≤ m
 * and m ≥ 2; `3. RATE VON 2` is stated but impossible: the text contradicts itself.
 */
export function statedInstalment(transaction: MatchTransaction): StatedInstalment | null {
  for (const text of referenceTexts(transaction)) {
    if (!text) continue
    const lower = plain(text)
    for (const pattern of INSTALMENTS) {
      const match = pattern.exec(lower)
      if (!match) continue
      const n = Number(match[1])
      const m = Number(match[2])
      if (m > 36) continue
      return { n, m, written: match[0].replace(/\s+/g, ' '), possible: n >= 1 && n <= m && m >= 2 }
    }
  }
  return null
}

/** Half a cent in money units: an instalment is the invoice's amount divided by `m`, rounded to the cent. */
const HALF_CENT = toUnits('0.005')

/**
 * Rule 13 (stated instalment): whether the payment is the stated instalment of the invoice: its amount times `m`
 * is the invoice's amount within the rounding of each instalment, or it is the last instalment and pays what is
 * open. When it is and `trusted` (the invoice is the only one named, by its whole number, and the payer is
 * verified as its customer), the statement explains another invoice of the customer at exactly the amount; when
 * it is not, the text and the amount disagree: a conflict. Null when it is but not trusted.
 */
export function instalmentEvidence(
  stated: StatedInstalment,
  payment: Payment,
  ledger: InvoiceLedger,
  open: bigint,
  trusted: boolean,
): Evidence | null {
  const part = `instalment ${stated.n} of ${stated.m} (“${stated.written}”)`
  if (!stated.possible) {
    return {
      code: 'conflict_instalment',
      points: 0,
      text: `the text states ${part}, which cannot exist: the statement contradicts itself`,
      conflict: 'unexplained',
    }
  }
  const gap = payment.amount * BigInt(stated.m) - ledger.amount
  const fits =
    (gap < 0n ? -gap : gap) <= HALF_CENT * BigInt(stated.m) ||
    (stated.n === stated.m && payment.amount === open)
  if (!fits) {
    return {
      code: 'conflict_instalment',
      points: 0,
      text: `the text states ${part}, but ${formatUnits(payment.amount)} is not that part of invoice ${ledger.invoice.number}’s ${ledger.amountText}`,
      conflict: 'unexplained',
    }
  }
  return trusted
    ? {
        code: 'instalment_stated',
        points: 0,
        text: `the text states ${part} of invoice ${ledger.invoice.number}, and ${formatUnits(payment.amount)} is that part of its ${ledger.amountText}`,
      }
    : null
}

/**
 * Rule 6's exception (an advance on a named invoice): advance wording followed by a word for invoice and this
 * hit's number (`ACOMPTE SUR FACTURE INV-2025-01205`, `Anzahlung auf Rechnung …`) is a part payment of that
 * invoice, not money for another order. The caller takes it only for a whole number of the verified payer's
 * invoice; the advance evidence is then explained, when the payment is at most what the invoice has open (a part of
 * it, or all of it): an advance larger than the invoice is not a part payment of it, a conflict. Otherwise
 * `advance` is returned as it is.
 */
export function advanceOnInvoice(
  advance: Evidence,
  payment: Payment,
  hit: ReferenceHit,
  ledger: InvoiceLedger,
): Evidence {
  const { amount, transaction } = payment
  const open = openFor(payment, ledger)
  const key = tokenKey(hit.reference)
  for (const text of referenceTexts(transaction)) {
    if (!text) continue
    const lower = plain(text)
    // What follows the word for invoice begins with the hit's number, token by token (a wrapped `INV-|2026-00311`
    // reads `INV- 2026-00311`; `INV-2026-003111` is another token, not it).
    const names = [...lower.matchAll(ADVANCE_ON_INVOICE)].some((match) => {
      const rest = tokenKey(lower.slice((match.index as number) + match[0].length))
      return key.every((token, at) => rest[at] === token)
    })
    if (names) {
      if (amount > open) {
        return {
          code: 'conflict_advance_over',
          points: 0,
          text: `the text pays an advance on invoice ${hit.reference}, but ${formatUnits(amount)} is more than the ${formatUnits(open)} it has open`,
          conflict: 'unexplained',
        }
      }
      return {
        code: 'advance_on_invoice',
        points: 0,
        text: `the text pays an advance on invoice ${hit.reference} itself: a part payment of that invoice`,
        conflict: 'explained',
      }
    }
  }
  return advance
}
