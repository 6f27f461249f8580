import { CustomerDirectory } from './customer-directory.js'
import {
  customerKeyOf,
  factsOf,
  lastHeld,
  recall,
  type CustomerKey,
  type InvoiceFacts,
} from './invoice-facts.js'
import { compactIssuedReference, compactReference, numberParts } from './invoice-number.js'
import { LengthCounts } from './length-counts.js'
import { TokenTrie, type TrieMatch } from './token-trie.js'
import type { MatchCustomer, MatchInvoice } from './types.js'

function add<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function drop<K, V extends { id: string }>(map: Map<K, V[]>, key: K, id: string): void {
  const list = map.get(key)?.filter((value) => value.id !== id)
  if (list && list.length > 0) map.set(key, list)
  else map.delete(key)
}

function isDigits(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code < 48 || code > 57) return false
  }
  return text.length > 0
}

function countWord(map: Map<string, number>, key: string, delta: 1 | -1): void {
  const left = (map.get(key) ?? 0) + delta
  if (left > 0) map.set(key, left)
  else map.delete(key)
}

/**
 * Every known invoice (open, paid and void: a payment naming a paid or void invoice still names it), by the token
 * key of its number, by its number's core (the digits without the prefix word, as tokens and run together), by the
 * payment reference printed on it, and by customer; with the customer directory that recognises payers. Finding
 * the invoices a text names costs O(tokens of the text), not O(invoices). Kept in memory by the caller and updated
 * as invoices and customers change.
 */
export class InvoiceIndex {
  readonly customers = new CustomerDirectory()
  /** Every invoice's facts (`facts.invoice` is the invoice), by id. */
  private readonly byId = new Map<string, InvoiceFacts>()
  /** The lookups by number, core and reference hold facts: what they find becomes the last asked about. */
  private readonly byNumber = new TokenTrie<InvoiceFacts>()
  private readonly byCore = new TokenTrie<InvoiceFacts>()
  private readonly byCompactCore = new Map<string, InvoiceFacts[]>()
  private readonly byCompactNumber = new Map<string, InvoiceFacts[]>()
  private readonly byIssued = new Map<string, InvoiceFacts[]>()
  private readonly byCustomerKey = new Map<CustomerKey, Map<string, MatchInvoice>>()
  /** `ofCustomerKey`'s lists, built when first asked for and dropped when the customer's invoices change. */
  private readonly customerLists = new Map<CustomerKey, readonly MatchInvoice[]>()
  private readonly issuedLengths = new LengthCounts()
  /**
   * The lengths of the issued references a run of digits can be (KID, OGM, Finnish, QR: digits only, or a KID's
   * digits and its mod-11 `-`, for which a payer may write a digit): most numbers are not one.
   */
  private readonly issuedDigitLengths = new LengthCounts()
  /** The lengths of the issued references of letters only: a word in free text can be no other. */
  private readonly issuedLetterLengths = new LengthCounts()
  private readonly compactCoreLengths = new LengthCounts()
  /** The words invoice numbers start with (`INV` of `INV-2024-0102`), counted: how the books print a number. */
  private readonly numberPrefixes = new Map<string, number>()

  constructor(invoices: Iterable<MatchInvoice> = [], customers: Iterable<MatchCustomer> = []) {
    for (const customer of customers) this.customers.upsertCustomer(customer)
    for (const invoice of invoices) this.upsert(invoice)
  }

  get size(): number {
    return this.byId.size
  }

  upsertCustomer(customer: MatchCustomer): void {
    this.customers.upsertCustomer(customer)
  }

  upsert(invoice: MatchInvoice): void {
    this.remove(invoice.id)
    const facts = factsOf(invoice)
    this.byId.set(invoice.id, facts)
    facts.heldBy = this
    const parts = numberParts(invoice.number)
    this.byNumber.add(parts.key, facts)
    // A number of digits only is its own core: finding it without a word for invoice is finding its core.
    if (parts.hasLetters && parts.core.length > 0) this.byCore.add(parts.core, facts)
    if (parts.core.length > 1) {
      add(this.byCompactCore, parts.compactCore, facts)
      this.compactCoreLengths.add(parts.compactCore.length, 1)
    }
    add(this.byCompactNumber, compactReference(invoice.number), facts)
    if (parts.hasLetters && !/^\d/.test(parts.key[0] as string))
      countWord(this.numberPrefixes, parts.key[0] as string, 1)
    if (invoice.paymentReference) {
      const issued = compactIssuedReference(invoice.paymentReference)
      add(this.byIssued, issued, facts)
      this.issuedLengths.add(issued.length, 1)
      if (readsAsDigits(issued)) this.issuedDigitLengths.add(issued.length, 1)
      if (isLetters(issued)) this.issuedLetterLengths.add(issued.length, 1)
    }
    // The invoice's facts are made and filled in here, in index order (a customer's invoices' records near one
    // another in memory, one key string per customer, the directory's), rather than wherever a run first asks.
    const key = facts.customerKey()
    if (key) {
      let invoices = this.byCustomerKey.get(key)
      if (!invoices) this.byCustomerKey.set(key, (invoices = new Map()))
      facts.shareKey(invoices.size > 0 ? firstKey(invoices) : this.customers.keyString(key))
      invoices.set(invoice.id, invoice)
      this.customerLists.delete(key)
    }
    try {
      facts.parseAmount()
    } catch {
      // A bad amount fails the run that needs it, as it would without this.
    }
    this.customers.countInvoiceNames(invoice, 1)
  }

  remove(invoiceId: string): void {
    const held = this.byId.get(invoiceId)
    if (!held) return
    const old = held.invoice
    this.byId.delete(invoiceId)
    if (held.heldBy === this) held.heldBy = null
    const parts = numberParts(old.number)
    const same = (facts: InvoiceFacts) => facts.id === invoiceId
    this.byNumber.delete(parts.key, same)
    if (parts.hasLetters && parts.core.length > 0) this.byCore.delete(parts.core, same)
    if (parts.core.length > 1) {
      drop(this.byCompactCore, parts.compactCore, invoiceId)
      this.compactCoreLengths.add(parts.compactCore.length, -1)
    }
    drop(this.byCompactNumber, compactReference(old.number), invoiceId)
    if (parts.hasLetters && !/^\d/.test(parts.key[0] as string))
      countWord(this.numberPrefixes, parts.key[0] as string, -1)
    if (old.paymentReference) {
      const issued = compactIssuedReference(old.paymentReference)
      drop(this.byIssued, issued, invoiceId)
      this.issuedLengths.add(issued.length, -1)
      if (readsAsDigits(issued)) this.issuedDigitLengths.add(issued.length, -1)
      if (isLetters(issued)) this.issuedLetterLengths.add(issued.length, -1)
    }
    const key = customerKeyOf(old)
    const invoices = key ? this.byCustomerKey.get(key) : undefined
    invoices?.delete(invoiceId)
    if (key) this.customerLists.delete(key)
    if (key && invoices?.size === 0) this.byCustomerKey.delete(key)
    this.customers.countInvoiceNames(old, -1)
  }

  get(invoiceId: string): MatchInvoice | undefined {
    // Mostly the caller asks for what a scan just named: those facts are the last asked about, found without a
    // lookup in the map of every invoice (at 100,000 invoices three CPU cache misses).
    const named = lastHeld(this, invoiceId)
    if (named !== null) return named.invoice
    const facts = this.byId.get(invoiceId)
    // The caller asks about the invoice next (its amount, its ledger): its facts are then found without a lookup.
    return facts && recall(facts)
  }

  /** The invoices whose number has exactly this token key (several: the same number in two entities). */
  withNumber(key: readonly string[]): readonly MatchInvoice[] {
    return this.byNumber.get(key).map(recall)
  }

  /** Invoice numbers found as runs of whole tokens, leftmost-longest, in the order written. */
  scan(tokens: readonly string[]): readonly TrieMatch<MatchInvoice>[] {
    return this.byNumber.scanAs(tokens, recall)
  }

  /** Number cores (digit tokens of prefixed numbers) found as runs of whole tokens of `tokens[from, to)`. */
  scanCores(tokens: readonly string[], from?: number, to?: number): readonly TrieMatch<MatchInvoice>[] {
    return this.byCore.scanAs(tokens, recall, from, to)
  }

  /** The invoices whose number core is exactly these digits, written together (20260007 for INV-2026-0007). */
  withCompactCore(digits: string): readonly MatchInvoice[] {
    return named(this.byCompactCore.get(digits))
  }

  /** Whether some invoice's core, written together, is `length` digits long (worth looking up). */
  hasCompactCoreLength(length: number): boolean {
    return this.compactCoreLengths.has(length)
  }

  /** The invoices whose number, letters and digits run together, is this (an RF body: `INV20240103`). */
  withCompactNumber(compact: string): readonly MatchInvoice[] {
    return named(this.byCompactNumber.get(compact))
  }

  /** Invoices whose printed payment reference is exactly this one (`compactIssuedReference`). */
  withIssuedReference(compact: string): readonly MatchInvoice[] {
    return named(this.byIssued.get(compact))
  }

  get hasIssuedReferences(): boolean {
    return this.byIssued.size > 0
  }

  /** Whether some invoice's payment reference is `length` characters long (worth a typo search). */
  hasIssuedLength(length: number): boolean {
    return this.issuedLengths.has(length)
  }

  /** Whether some invoice's payment reference is `length` digits (a KID's `-` counted as one). */
  hasIssuedDigitsLength(length: number): boolean {
    return this.issuedDigitLengths.has(length)
  }

  /** Whether some invoice's payment reference is `length` letters (A–Z) and nothing else. */
  hasIssuedLettersLength(length: number): boolean {
    return this.issuedLetterLengths.has(length)
  }

  /** Whether some invoice's number starts with this word (token, upper case): the books' own printed form. */
  isNumberPrefix(word: string): boolean {
    return this.numberPrefixes.has(word)
  }

  /** The invoices of one customer, by id. */
  ofCustomerKey(key: CustomerKey): readonly MatchInvoice[] {
    let list = this.customerLists.get(key)
    if (!list) {
      const invoices = this.byCustomerKey.get(key)
      if (!invoices) return []
      // By id: the order the matcher weighs a customer's invoices in, so callers' sorts find them sorted.
      list = [...invoices.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      this.customerLists.set(key, list)
      let previous: InvoiceFacts | null = null
      for (const invoice of list) {
        const facts = factsOf(invoice)
        if (previous) previous.next = facts
        previous = facts
      }
      if (previous) previous.next = null
    }
    return list
  }

  /** The invoices of the customers a payer of this name is recognised as. */
  ofCustomer(name: string | null | undefined): MatchInvoice[] {
    return this.customers.byName(name).flatMap((key) => this.ofCustomerKey(key))
  }
}

/** The invoices of these facts; the facts of the last become the last asked about (the caller asks for it next). */
function named(found: readonly InvoiceFacts[] | undefined): readonly MatchInvoice[] {
  return found ? found.map(recall) : []
}

/** A match's invoices; the facts of the last become the last asked about (the caller asks for it next). */
/** The customer key the first invoice of a customer's map carries (the one its invoices share). */
function firstKey(invoices: Map<string, MatchInvoice>): CustomerKey {
  const first = invoices.values().next().value as MatchInvoice
  return customerKeyOf(first) as CustomerKey
}

function isLetters(issued: string): boolean {
  for (let at = 0; at < issued.length; at++) {
    const code = issued.charCodeAt(at)
    if (code < 65 || code > 90) return false
  }
  return issued.length > 0
}

function readsAsDigits(issued: string): boolean {
  return isDigits(issued.endsWith('-') ? issued.slice(0, -1) : issued)
}
