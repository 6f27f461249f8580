import { describe, expect, it } from 'vitest'
import { candidateKeys } from '../../src/matching/candidate-keys.js'
import {
  findReferences,
  InvoiceIndex,
  invoiceMatchKeys,
  referencedInvoiceIds,
} from '../../src/matcher/index.js'
import { loadCorpus } from '../support/matching-corpus.js'

describe('the store’s keys over the corpus', () => {
  it('hold a match key of every invoice the matcher can name in every corpus payment, so the store loads it', () => {
    const corpus = loadCorpus()
    const missing: string[] = []
    for (const entry of corpus.cases) {
      const invoices = [...corpus.invoices, ...(entry.invoices ?? [])]
      const index = new InvoiceIndex(invoices, corpus.customers)
      const keys = new Set(candidateKeys(entry.payment))
      for (const id of referencedInvoiceIds(findReferences(index, entry.payment))) {
        const invoice = index.get(id)!
        if (!invoiceMatchKeys(invoice).some((key) => keys.has(key)))
          missing.push(`${entry.id}: ${invoice.number}`)
      }
    }
    expect(missing).toEqual([])
  })
})
