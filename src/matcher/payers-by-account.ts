/** The payers of one shown account: the first name shown with it in the entry itself, any other in a map. */
type AccountPayers<P> = { name: string; payer: P; others: Map<string, P> | null }

/**
 * Payers recognised by shown account and name together. An account is nearly always shown with one name, so
 * that payer is found without a map per account: at thousands of customers each map is one CPU cache miss more
 * per payment.
 */
export class PayersByAccount<P> {
  private readonly entries = new Map<string, AccountPayers<P>>()

  get(account: string, name: string): P | undefined {
    const entry = this.entries.get(account)
    if (entry === undefined) return undefined
    return entry.name === name ? entry.payer : entry.others?.get(name)
  }

  set(account: string, name: string, payer: P): void {
    const entry = this.entries.get(account)
    if (entry === undefined) this.entries.set(account, { name, payer, others: null })
    else if (entry.name === name) entry.payer = payer
    else (entry.others ??= new Map()).set(name, payer)
  }

  clear(): void {
    this.entries.clear()
  }
}
