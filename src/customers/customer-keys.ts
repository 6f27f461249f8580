import { accountTail, compactAccount, nameLookupKeys } from '../matcher/index.js'
import type { CustomerWrite } from '../store/index.js'
import type { CustomerInput } from './customer-input.js'

/** Bump when any rule below changes: the sidecar re-keys stored customers of an older version at start-up. */
export const CUSTOMER_KEYS_VERSION = 2

/**
 * What payers are compared by, worked out by the matcher's rules (version 1: names also as a bank cuts them;
 * version 2: names folded with German transliteration, Cyrillic and Greek transliterated).
 */
export function customerKeys(customer: Pick<CustomerInput, 'name' | 'aliases' | 'bankAccounts'>) {
  return {
    nameKeys: nameLookupKeys([customer.name, ...customer.aliases]),
    accountTails: [...new Set(customer.bankAccounts.map((account) => accountTail(compactAccount(account))))],
    keysVersion: CUSTOMER_KEYS_VERSION,
  }
}

/** A customer as the store writes it: the caller's fields and their keys. */
export function customerWrite(customer: CustomerInput): CustomerWrite {
  return { ...customer, ...customerKeys(customer) }
}
