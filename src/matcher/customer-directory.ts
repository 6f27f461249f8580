import {
  accountMatches,
  accountTail,
  compactAccount,
  parseMaskedAccount,
  verifiesOwner,
} from './bank-account.js'
import { intermediaryOf } from './intermediaries.js'
import { namedAs, namesOf, startingWith } from './payer-names.js'
import { mayBeCut, nameKey, sharesNoWord, type NameKey } from './normalize-name.js'
import { customerKeyOf, type CustomerKey } from './invoice-facts.js'
import { PayersByAccount } from './payers-by-account.js'
import type { MatchCustomer, MatchInvoice } from './types.js'

/** How the payer of a transaction was recognised, strongest first. */
export type PayerHow =
  | 'account'
  | 'learned_account'
  | 'learned_name'
  | 'name'
  /** Only a masked tail of four characters or fewer matched a customer's account: a hint, not verified. */
  | 'account_tail'
  /** A payment intermediary (PSP, payment agent, factor): it pays for many customers and tells nothing. */
  | 'intermediary'

/**
 * The payer of a transaction: the customers it can be (one when recognised), how, and in words. `verified` is
 * true for an account of the master data or a link a person's match taught.
 */
export type PayerIdentity = {
  customers: CustomerKey[]
  how: PayerHow | null
  verified: boolean
  text: string
}

const UNKNOWN: PayerIdentity = {
  customers: [],
  how: null,
  verified: false,
  text: 'the payer is not a known customer',
}

type NameEntry = { key: CustomerKey; legalForm: string | null; count: number }

/** What a shown account alone tells: its one customer (verified, or only by a short tail), or several. */
type AccountFact =
  | {
      kind: 'verified'
      key: CustomerKey
      how: 'account' | 'learned_account'
      text: string
      payer: PayerIdentity
    }
  | { kind: 'tail'; key: CustomerKey; text: string }
  | { kind: 'shared'; text: string }

/** Bounded cache of name keys: payers' names repeat from month to month. */
const NAME_CACHE_LIMIT = 50_000

/**
 * The customers a set of transactions may be paid by, for recognising payers: names (with legal forms, and cut
 * names by prefix), bank accounts against masked ones, and what a person's matches taught. Customers of the master
 * data come from `upsertCustomer`; invoices without a customer id add their customer name and aliases.
 */
export class CustomerDirectory {
  private readonly customers = new Map<string, MatchCustomer>()
  private readonly byBase = new Map<string, NameEntry[]>()
  private readonly byTail = new Map<string, Array<{ account: string; key: CustomerKey }>>()
  private readonly learnedAccounts = new Map<string, Set<CustomerKey>>()
  private readonly learnedNames = new Map<string, Set<CustomerKey>>()
  /** One key string per customer of the master data, which invoices' facts share: equal keys are then one string. */
  private readonly keyStrings = new Map<CustomerKey, CustomerKey>()
  private plain: Array<[string, CustomerKey]> | null = null
  private readonly plainCounts = new Map<string, number>()
  private readonly names = new Map<string, NameKey | null>()
  /** Since the last change of the directory: what each shown account tells (null: nothing), and payers by name. */
  private readonly payersByAccount = new Map<string, AccountFact | null>()
  private readonly payersByName = new Map<string, PayerIdentity>()
  /** Payers by shown account and name together (the account's fact weighed against the name). */
  private readonly payersByBoth = new PayersByAccount<PayerIdentity>()
  private payerCount = 0
  /** Customer keys in words, like the payers until the directory changes. */
  private readonly labels = new Map<CustomerKey, string>()
  /** The last payer asked for: the caller that loads a set and the matcher ask about the same strings in turn. */
  private lastName: string | null | undefined = undefined
  private lastAccount: string | null | undefined = undefined
  private lastPayer: PayerIdentity | null = null

  /**
   * The directory's string for `key` (the one its entries and payers hold), else `key`: comparing one string with
   * itself reads no characters, which in a directory of thousands of customers are rarely in the CPU cache.
   */
  keyString(key: CustomerKey): CustomerKey {
    return this.keyStrings.get(key) ?? key
  }

  /** Whether `id` is the id of a customer of the master data (a number equal to it is a customer number). */
  hasCustomerId(id: string): boolean {
    return this.customers.has(id)
  }

  customer(id: string): MatchCustomer | undefined {
    return this.customers.get(id)
  }

  upsertCustomer(customer: MatchCustomer): void {
    this.clearPayers()
    this.removeCustomer(customer.id)
    this.customers.set(customer.id, customer)
    this.eachFact(customer, 1)
  }

  removeCustomer(id: string): void {
    const old = this.customers.get(id)
    if (!old) return
    this.clearPayers()
    this.customers.delete(id)
    this.eachFact(old, -1)
  }

  /** An invoice without a customer id adds (delta 1) or drops (-1) its customer's names. */
  countInvoiceNames(invoice: MatchInvoice, delta: 1 | -1): void {
    if (invoice.customerId) return
    const key = customerKeyOf(invoice)
    if (!key) return
    for (const name of [invoice.customerName, ...(invoice.customerAliases ?? [])])
      this.countName(key, name, delta)
  }

  private eachFact(customer: MatchCustomer, delta: 1 | -1): void {
    let key = `c:${customer.id}`
    const kept = this.keyStrings.get(key)
    if (kept) key = kept
    else this.keyStrings.set(key, key)
    for (const name of [customer.name, ...(customer.aliases ?? [])]) this.countName(key, name, delta)
    for (const account of customer.bankAccounts ?? []) {
      const compact = compactAccount(account)
      const tail = accountTail(compact)
      const list = (this.byTail.get(tail) ?? []).filter(
        (item) => !(item.key === key && item.account === compact),
      )
      if (delta > 0) list.push({ account: compact, key })
      if (list.length > 0) this.byTail.set(tail, list)
      else this.byTail.delete(tail)
    }
    const learn = (map: Map<string, Set<CustomerKey>>, value: string | undefined) => {
      if (!value) return
      const keys = map.get(value) ?? new Set()
      if (delta > 0) keys.add(key)
      else keys.delete(key)
      if (keys.size > 0) map.set(value, keys)
      else map.delete(value)
    }
    for (const account of customer.learnedAccounts ?? []) {
      learn(this.learnedAccounts, parseMaskedAccount(account)?.compact)
    }
    for (const name of customer.learnedNames ?? []) {
      const parsed = nameKey(name)
      // An intermediary's name is never one customer's (learned before the list named it, say).
      if (parsed && !intermediaryOf(parsed.plain)) learn(this.learnedNames, parsed.full)
    }
  }

  private countName(key: CustomerKey, name: string | null | undefined, delta: 1 | -1): void {
    this.clearPayers()
    const parsed = nameKey(name)
    if (!parsed) return
    this.countKey(key, parsed, delta)
    // A bank without umlauts may strip them (Müller as Muller): the customer is found by that spelling too.
    if (parsed.stripped) this.countKey(key, parsed.stripped, delta)
  }

  private countKey(key: CustomerKey, parsed: NameKey, delta: 1 | -1): void {
    const entries = this.byBase.get(parsed.base) ?? []
    const entry = entries.find((item) => item.key === key && item.legalForm === parsed.legalForm)
    if (entry) entry.count += delta
    else if (delta > 0) entries.push({ key, legalForm: parsed.legalForm, count: 1 })
    const kept = entries.filter((item) => item.count > 0)
    if (kept.length > 0) this.byBase.set(parsed.base, kept)
    else this.byBase.delete(parsed.base)
    const plainKey = `${parsed.plain}\u0000${key}`
    const count = (this.plainCounts.get(plainKey) ?? 0) + delta
    if (count > 0) this.plainCounts.set(plainKey, count)
    else this.plainCounts.delete(plainKey)
    this.plain = null
  }

  private nameOf(name: string): NameKey | null {
    let parsed = this.names.get(name)
    if (parsed === undefined) {
      if (this.names.size >= NAME_CACHE_LIMIT) this.names.clear()
      parsed = nameKey(name)
      this.names.set(name, parsed)
    }
    return parsed
  }

  /** The customers whose name is this one: the same words, and a legal form that does not contradict it. */
  byName(name: string | null | undefined): CustomerKey[] {
    if (!name) return []
    const parsed = this.nameOf(name)
    if (!parsed) return []
    const entries = this.byBase.get(parsed.base)
    if (entries) {
      const fitting = parsed.legalForm
        ? entries.filter((entry) => entry.legalForm === null || entry.legalForm === parsed.legalForm)
        : entries
      return [...new Set(fitting.map((entry) => entry.key))].sort()
    }
    return mayBeCut(name) ? this.byCutName(parsed.plain) : []
  }

  /** A name the bank cut at 35 or 70 characters: the customers whose full name starts with it. */
  private byCutName(prefix: string): CustomerKey[] {
    if (prefix.length < 10) return []
    this.plain ??= [...this.plainCounts.keys()]
      .map((entry) => entry.split('\u0000') as [string, CustomerKey])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    return startingWith(this.plain, prefix)
  }

  /**
   * Recognises the payer: master-data account, learned account, learned name, then name. An account verifies the
   * payer only when it shows more than a masked tail of four characters, paid for no other customer, and the name
   * on it does not contradict its customer; an intermediary's name (PSP, payment agent, factor) verifies no one.
   */
  identify(name: string | null | undefined, shownAccount: string | null | undefined): PayerIdentity {
    if (this.lastPayer !== null && this.lastName === name && this.lastAccount === shownAccount)
      return this.lastPayer
    // Payers repeat month after month: remember who they were until the directory changes.
    if (this.payerCount >= NAME_CACHE_LIMIT) this.clearPayers()
    let payer: PayerIdentity | null = null
    if (shownAccount) {
      // By account, then name (no key string is built per payment).
      payer = this.payersByBoth.get(shownAccount, name || '') ?? null
      if (payer === null) {
        payer = this.byAccountAndName(shownAccount, name)
        this.payersByBoth.set(shownAccount, name || '', payer)
        this.payerCount++
      }
    } else {
      payer = this.byNameOf(name)
    }
    this.lastName = name
    this.lastAccount = shownAccount
    this.lastPayer = payer
    return payer
  }

  /** The payer an account tells, weighed against the name shown with it; by name alone when it tells nothing. */
  private byAccountAndName(shownAccount: string, name: string | null | undefined): PayerIdentity {
    let fact = this.payersByAccount.get(shownAccount)
    if (fact === undefined) {
      fact = this.recogniseAccount(shownAccount)
      this.payersByAccount.set(shownAccount, fact)
      this.payerCount++
    }
    // The account's own customer's name shown with it: verified without reading the name.
    if (fact?.kind === 'verified' && namedAs(this.customers.get(fact.key.slice(2)), fact.key, name))
      return fact.payer
    const byName = this.byNameOf(name)
    return fact === null || byName.how === 'intermediary' ? byName : this.weigh(fact, name, byName)
  }

  private byNameOf(name: string | null | undefined): PayerIdentity {
    let byName = this.payersByName.get(name ?? '')
    if (byName === undefined) {
      byName = this.recogniseName(name)
      this.payersByName.set(name ?? '', byName)
      this.payerCount++
    }
    return byName
  }

  /** The payer an account's fact and the name shown with it tell together. */
  private weigh(fact: AccountFact, name: string | null | undefined, byName: PayerIdentity): PayerIdentity {
    if (fact.kind === 'verified') {
      if (!this.contradicts(name, byName, fact.key)) return fact.payer
      return {
        customers: [fact.key],
        how: fact.how,
        verified: false,
        text: `${fact.text}, but the name “${name}” shown with it is not ${this.label(fact.key)}’s: the account does not verify the payer`,
      }
    }
    if (byName.customers.length > 0) return byName
    return fact.kind === 'tail'
      ? { customers: [fact.key], how: 'account_tail', verified: false, text: fact.text }
      : { customers: [], how: null, verified: false, text: fact.text }
  }

  /** Whether the name shown with an account is clearly not its customer's: another customer's, or no word of it. */
  private contradicts(name: string | null | undefined, byName: PayerIdentity, key: CustomerKey): boolean {
    if (!name || byName.customers.includes(key)) return false
    if (byName.customers.length > 0) return true
    const names = namesOf(key, this.customers.get(key.slice(2)))
    return sharesNoWord(
      this.nameOf(name),
      names.map((each) => this.nameOf(each)),
    )
  }

  private clearPayers(): void {
    this.lastPayer = null
    this.labels.clear()
    this.payersByAccount.clear()
    this.payersByName.clear()
    this.payersByBoth.clear()
    this.payerCount = 0
  }

  /** What a shown account alone tells (whatever the name), or null when it tells nothing. */
  private recogniseAccount(shownAccount: string): AccountFact | null {
    const shown = parseMaskedAccount(shownAccount)
    if (!shown) return null
    const owners = new Set<CustomerKey>()
    for (const item of this.byTail.get(accountTail(shown.tail)) ?? []) {
      if (accountMatches(item.account, shown)) owners.add(item.key)
    }
    const learned = this.learnedAccounts.get(shown.compact)
    const payers = new Set([...owners, ...(learned ?? [])])
    if (payers.size > 1) {
      // One account paying for two or more customers is an intermediary or a group's treasury: it verifies no one.
      return {
        kind: 'shared',
        text: `account ${shownAccount} paid for several customers (${[...payers].map((key) => this.label(key)).join(', ')}): an intermediary or group account, it verifies no one`,
      }
    }
    const [key] = [...payers] as [CustomerKey | undefined]
    if (key === undefined) return null
    const how = owners.size === 1 ? 'account' : 'learned_account'
    const text =
      how === 'account'
        ? `the payer’s account ${shownAccount} is ${this.label(key)}’s`
        : `a person’s match taught that account ${shownAccount} pays ${this.label(key)}`
    if (!verifiesOwner(shown)) {
      return {
        kind: 'tail',
        key,
        text: `${text}, but only its last ${shown.tail.length} characters show: not enough to verify the payer`,
      }
    }
    return { kind: 'verified', key, how, text, payer: { customers: [key], how, verified: true, text } }
  }

  /** The payer by name: a learned name, then the customers' names. */
  private recogniseName(name: string | null | undefined): PayerIdentity {
    const parsed = name ? this.nameOf(name) : null
    const intermediary = parsed ? intermediaryOf(parsed.plain) : null
    if (intermediary) {
      return {
        customers: [],
        how: 'intermediary',
        verified: false,
        text: `“${name}” is a payment intermediary (${intermediary.kind}): it pays for many customers, so it tells nothing about who paid`,
      }
    }
    const learnedName = parsed ? this.learnedNames.get(parsed.full) : undefined
    if (learnedName?.size === 1) {
      const key = [...learnedName][0] as string
      return {
        customers: [key],
        how: 'learned_name',
        verified: true,
        text: `a person’s match taught that “${name}” pays ${this.label(key)}`,
      }
    }
    const byName = this.byName(name)
    if (byName.length === 0) return UNKNOWN
    if (byName.length > 1) {
      return {
        customers: byName,
        how: 'name',
        verified: false,
        text: `the payer’s name “${name}” fits ${byName.length} customers (${byName.map((key) => this.label(key)).join(', ')})`,
      }
    }
    const key = byName[0] as string
    return {
      customers: [key],
      how: 'name',
      verified: false,
      text: `the payer’s name “${name}” is ${this.label(key)}’s`,
    }
  }

  /** A customer key in words: the master record's name, or the invoices' customer name. */
  label(key: CustomerKey): string {
    let label = this.labels.get(key)
    if (label === undefined) {
      label = key.startsWith('c:')
        ? (this.customers.get(key.slice(2))?.name ?? `customer ${key.slice(2)}`)
        : key.slice(2)
      this.labels.set(key, label)
    }
    return label
  }
}
