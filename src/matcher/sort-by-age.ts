import { compareAge } from './invoice-age.js'
import { factsOf } from './invoice-facts.js'
import type { MatchInvoice } from './types.js'

/**
 * `items` oldest first by `compareAge` of their invoices (stable). Ages written YYYY-MM-DD are compared as the
 * numbers the invoices' facts keep (`ageNumber`), so the sort reads no date text: at 100,000 invoices each is a
 * CPU cache miss. Other ages are compared as text, as `compareAge` does.
 */
export function sortByAge<T>(items: readonly T[], invoiceOf: (item: T) => MatchInvoice): T[] {
  const ages = items.map((item) => factsOf(invoiceOf(item)).ageNumber())
  const order = items.map((_, at) => at)
  order.sort((a, b) => {
    const invoiceA = invoiceOf(items[a] as T)
    const invoiceB = invoiceOf(items[b] as T)
    const ageA = ages[a] as number
    const ageB = ages[b] as number
    if (ageA < 0 || ageB < 0) return compareAge(invoiceA, invoiceB)
    if (ageA !== ageB) return ageA - ageB
    return invoiceA.id < invoiceB.id ? -1 : invoiceA.id > invoiceB.id ? 1 : 0
  })
  return order.map((at) => items[at] as T)
}
