import { normalizeName } from './normalize-name.js'
import { TokenTrie, type TrieMatch } from './token-trie.js'
import { tokenKey } from './tokenize.js'
import type { MatchInvoice } from './types.js'

function customerNames(invoice: MatchInvoice): Set<string> {
  const names = new Set<string>()
  for (const name of [invoice.customerName, ...(invoice.customerAliases ?? [])]) {
    const normalized = normalizeName(name)
    if (normalized) names.add(normalized)
  }
  return names
}

/**
 * Every known invoice (open, paid and void: a payment naming a paid or void invoice still names it), by the token
 * key of its number and by its customer's normalized names. Finding the invoices a text names costs
 * O(tokens of the text), not O(invoices). Kept in memory by the caller and updated as invoices change.
 */
export class InvoiceIndex {
  private readonly byId = new Map<string, MatchInvoice>()
  private readonly byNumber = new TokenTrie<MatchInvoice>()
  private readonly byCustomer = new Map<string, Map<string, MatchInvoice>>()

  constructor(invoices: Iterable<MatchInvoice> = []) {
    for (const invoice of invoices) this.upsert(invoice)
  }

  get size(): number {
    return this.byId.size
  }

  upsert(invoice: MatchInvoice): void {
    this.remove(invoice.id)
    this.byId.set(invoice.id, invoice)
    this.byNumber.add(tokenKey(invoice.number), invoice)
    for (const name of customerNames(invoice)) {
      let invoices = this.byCustomer.get(name)
      if (!invoices) {
        invoices = new Map()
        this.byCustomer.set(name, invoices)
      }
      invoices.set(invoice.id, invoice)
    }
  }

  remove(invoiceId: string): void {
    const old = this.byId.get(invoiceId)
    if (!old) return
    this.byId.delete(invoiceId)
    this.byNumber.delete(tokenKey(old.number), (invoice) => invoice.id === invoiceId)
    for (const name of customerNames(old)) {
      const invoices = this.byCustomer.get(name)
      invoices?.delete(invoiceId)
      if (invoices?.size === 0) this.byCustomer.delete(name)
    }
  }

  get(invoiceId: string): MatchInvoice | undefined {
    return this.byId.get(invoiceId)
  }

  /** The invoices whose number has exactly this token key (several: the same number in two entities). */
  withNumber(key: readonly string[]): readonly MatchInvoice[] {
    return this.byNumber.get(key)
  }

  /** Invoice numbers found as runs of whole tokens, leftmost-longest, in the order written. */
  scan(tokens: readonly string[]): TrieMatch<MatchInvoice>[] {
    return this.byNumber.scan(tokens)
  }

  /** The invoices whose customer name or an alias normalizes to the same name as `name`. */
  ofCustomer(name: string | null | undefined): MatchInvoice[] {
    const normalized = normalizeName(name)
    const invoices = normalized ? this.byCustomer.get(normalized) : undefined
    return invoices ? [...invoices.values()] : []
  }
}
