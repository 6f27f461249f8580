import type { CustomerKey } from './invoice-facts.js'
import type { MatchCustomer } from './types.js'

/**
 * Whether no name is shown with an account, or exactly one of its customer's own names (any case): then the
 * account verifies the payer without the name being read.
 */
export function namedAs(
  customer: MatchCustomer | undefined,
  key: CustomerKey,
  name: string | null | undefined,
): boolean {
  if (!name) return true
  if (!key.startsWith('c:') || !customer) return false
  if (customer.name === name) return true
  const upper = name.toUpperCase()
  if (customer.name.toUpperCase() === upper) return true
  return (customer.aliases ?? []).some((alias) => alias.toUpperCase() === upper)
}

/** Every name a customer is known by: the master record's name, aliases and learned names, or the invoices' name. */
export function namesOf(key: CustomerKey, customer: MatchCustomer | undefined): string[] {
  if (key.startsWith('c:') && customer)
    return [customer.name, ...(customer.aliases ?? []), ...(customer.learnedNames ?? [])]
  return [key.slice(2)]
}

/** The customers whose name (folded words, `plain`) starts with `prefix`, of pairs sorted by name. */
export function startingWith(sorted: ReadonlyArray<[string, CustomerKey]>, prefix: string): CustomerKey[] {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >> 1
    if ((sorted[middle] as [string, CustomerKey])[0] < prefix) low = middle + 1
    else high = middle
  }
  const keys = new Set<CustomerKey>()
  for (let index = low; index < sorted.length; index++) {
    const [plain, key] = sorted[index] as [string, CustomerKey]
    if (!plain.startsWith(prefix)) break
    keys.add(key)
  }
  return [...keys].sort()
}
