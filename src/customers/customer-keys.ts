import { accountTail, compactAccount, normalizeName } from '../matcher/index.js'
import type { CustomerWrite } from '../store/index.js'
import type { CustomerInput } from './customer-input.js'

/** A customer as the store writes it: what payers are compared by, worked out by the matcher's rules. */
export function customerWrite(customer: CustomerInput): CustomerWrite {
  return {
    ...customer,
    nameKeys: [...new Set([customer.name, ...customer.aliases].map(normalizeName).filter(Boolean))],
    accountTails: [...new Set(customer.bankAccounts.map((account) => accountTail(compactAccount(account))))],
  }
}
