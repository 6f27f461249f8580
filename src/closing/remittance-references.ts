import type { Kysely } from 'kysely'
import { findReferences, InvoiceIndex, referenceStrength, type ReferenceSource } from '../matcher/index.js'
import {
  loadInvoicesByNumberKeys,
  type Database,
  type InvoiceRow,
  type MatchTransactionRow,
} from '../store/index.js'
import { candidateKeys, matchInvoiceOf } from '../matching/index.js'

/**
 * What one advice line says about its invoice when it names no invoice number outright (a camt.054 TxDtls): the
 * structured creditor reference, the stated document numbers and the free text, read as a payment's
 * paymentReference, customerReference and description are.
 */
export type AdviceReference = {
  /** How the line is named in messages (its reference, or its end-to-end id). */
  label: string
  structured: string | null
  documents: string | null
  text: string | null
}

/** The invoices a line's references name most strongly (one when it is clear), or why none is taken. */
export type NamedInvoices = { invoices: InvoiceRow[]; why: string | null }

/**
 * Finds the invoices advice lines name as the matcher finds a payment's (issued payment reference, RF/OGM built
 * from the number, the number in free text), against the invoices their texts can name. Only clean hits count:
 * check digits that fail, a number that reads as a date or another label, or a short number core name nothing.
 */
export async function invoicesByReference(
  trx: Kysely<Database>,
  references: readonly AdviceReference[],
  transaction: Pick<MatchTransactionRow, 'account_id' | 'entity_id'>,
): Promise<NamedInvoices[]> {
  const sources = references.map((reference): ReferenceSource => ({
    paymentReference: reference.structured,
    customerReference: reference.documents,
    description: reference.text,
    rawDescription: null,
    accountId: transaction.account_id,
    entityId: transaction.entity_id,
    bankReference: null,
  }))
  const rows = await loadInvoicesByNumberKeys(trx, [...new Set(sources.flatMap(candidateKeys))])
  const byId = new Map(rows.map((row) => [row.id, row]))
  const index = new InvoiceIndex(rows.map(matchInvoiceOf))
  return sources.map((source) => {
    const found = findReferences(index, source)
    if (found.outcome === 'none') return { invoices: [], why: 'names no known invoice' }
    const clean = found.hits.filter(
      (hit) => hit.checkDigits !== 'invalid' && hit.conflicts.length === 0 && !hit.short,
    )
    if (clean.length === 0) {
      const hit = found.hits[0]!
      const why =
        hit.checkDigits === 'invalid'
          ? `the check digits of ${hit.reference} do not add up`
          : (hit.conflicts[0]?.text ?? `${hit.reference} is too short to name an invoice alone`)
      return { invoices: [], why }
    }
    const best = Math.max(...clean.map(referenceStrength))
    const ids = new Set(
      clean.filter((hit) => referenceStrength(hit) === best).flatMap((hit) => hit.invoiceIds),
    )
    return { invoices: [...ids].map((id) => byId.get(id)!), why: null }
  })
}
