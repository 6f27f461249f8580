import { ageNumber, ageOf } from './invoice-age.js'
import { numberParts, type NumberParts } from './invoice-number.js'
import { centsOf, formatUnits, toUnits } from './money.js'
import { nameKey } from './normalize-name.js'
import type { MatchInvoice } from './types.js'

/**
 * Who a customer is to the matcher: `c:<id>` for a customer of the master data, `n:<name>` for the customer an
 * invoice without `customerId` names (its name with the legal form, so legal-form twins stay apart).
 */
export type CustomerKey = string

/**
 * What the matcher works out from one invoice, each part when first asked for and then kept: its parsed amounts,
 * its customer key and its number's parts. One record per invoice, found with one lookup: at 100,000 invoices a
 * lookup in a large table and the record it finds each miss the CPU cache, so one record beats three.
 */
export class InvoiceFacts {
  /** The amount in money units, and formatted (`parseAmount` sets these five). */
  units = 0n
  amountText = ''
  /** `amountText` is '0' (an amount of 0 or less): told without reading the text, rarely in the CPU cache. */
  owesNothing = false
  /** The amount in cents (`centsOf`), or -1. */
  cents = -1
  /** Credit notes netted against the invoice and what a person wrote off, in money units (never below 0). */
  credits = 0n
  writtenOff = 0n
  /**
   * The facts of the invoice after this one in its customer's list (`InvoiceIndex.ofCustomerKey` links them):
   * a run takes a customer's invoices in that order, so `factsOf` finds the next one without a lookup.
   */
  next: InvoiceFacts | null = null
  /**
   * The index that holds this invoice under its id (`InvoiceIndex` sets and clears it), so the index can tell
   * facts it was just asked about are its own without a lookup.
   */
  heldBy: object | null = null
  /** The invoice's id, read here with the rest of its facts. */
  readonly id: string
  private parsed = false
  private key: CustomerKey | null | undefined = undefined
  private parts: NumberParts | null = null
  private age: number | undefined = undefined

  constructor(readonly invoice: MatchInvoice) {
    this.id = invoice.id
  }

  /** Parses the amounts once (a bad amount throws, each time it is asked for). */
  parseAmount(): this {
    if (!this.parsed) {
      const { invoice } = this
      const units = toUnits(invoice.amount)
      const credits = invoice.credits ? toUnits(invoice.credits) : 0n
      const writtenOff = invoice.writtenOff ? toUnits(invoice.writtenOff) : 0n
      this.units = units
      this.amountText = formatUnits(units > 0n ? units : 0n)
      this.owesNothing = units <= 0n
      this.cents = centsOf(units)
      this.credits = credits > 0n ? credits : 0n
      this.writtenOff = writtenOff > 0n ? writtenOff : 0n
      this.parsed = true
    }
    return this
  }

  customerKey(): CustomerKey | null {
    if (this.key === undefined) {
      const { invoice } = this
      const name = invoice.customerId ? null : nameKey(invoice.customerName)
      this.key = invoice.customerId ? `c:${invoice.customerId}` : name ? `n:${name.full}` : null
    }
    return this.key
  }

  /** Lets the invoices of one customer share one key string (the index passes the one it keeps). */
  shareKey(key: CustomerKey): void {
    if (this.customerKey() === key) this.key = key
  }

  numberParts(): NumberParts {
    return (this.parts ??= numberParts(this.invoice.number))
  }

  /** The invoice's age (`ageOf`) as `ageNumber` reads it. */
  ageNumber(): number {
    return (this.age ??= ageNumber(ageOf(this.invoice)))
  }
}

// Invoices are immutable values (an upsert replaces the object), so what is worked out from one can be kept with it.
const facts = new WeakMap<MatchInvoice, InvoiceFacts>()

// A run asks about the same invoice several times in a row (its amount, its ledger, its customer), and about a
// customer's invoices in the order of the customer's list: the last one asked about is kept, with its `next`.
let lastFacts: InvoiceFacts | null = null

export function factsOf(invoice: MatchInvoice): InvoiceFacts {
  const last = lastFacts
  if (last !== null) {
    if (last.invoice === invoice) return last
    if (last.next !== null && last.next.invoice === invoice) return (lastFacts = last.next)
  }
  let found = facts.get(invoice)
  if (!found) {
    found = new InvoiceFacts(invoice)
    facts.set(invoice, found)
  }
  lastFacts = found
  return found
}

/** These facts become the last asked about (their invoice is asked about next); returns their invoice. */
export function recall(facts: InvoiceFacts): MatchInvoice {
  lastFacts = facts
  return facts.invoice
}

/** The facts last asked about, if `holder` holds their invoice under `invoiceId`. */
export function lastHeld(holder: object, invoiceId: string): InvoiceFacts | null {
  const last = lastFacts
  return last !== null && last.heldBy === holder && last.id === invoiceId ? last : null
}

export function customerKeyOf(invoice: MatchInvoice): CustomerKey | null {
  return factsOf(invoice).customerKey()
}

/** An invoice's amount in money units, parsed once per invoice. */
export function invoiceUnits(invoice: MatchInvoice): bigint {
  return factsOf(invoice).parseAmount().units
}
