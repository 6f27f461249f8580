import { Decimal } from 'decimal.js'
import type { SeededRandom } from './seeded-random.js'

/** Every invoice number of a chaos run starts with this; no bank-made reference contains it. */
export const CHAOS_INVOICE_PREFIX = 'CHX'

export type PlannedInvoice = {
  id: string
  number: string
  amount: string
  currency: string
  customerName: string
  /** Written during the run after its first payment (a payment may reach bankrec before its invoice). */
  late: boolean
}

export type PaymentAccount = { connectionId: string; accountId: string; currency: string }

/** One step of the run at the bank (or, for `invoice`, bankrec's API); `at` in [0, 1) orders the steps in time. */
export type PlannedStep = { at: number } & (
  | {
      kind: 'pay'
      /** The run's own handle of the transaction, for later steps (the bank's id is known only once it exists). */
      handle: string
      invoiceId: string
      account: PaymentAccount
      amount: string
      status: 'posted' | 'pending'
    }
  | { kind: 'settle' | 'remove'; handle: string }
  | { kind: 'modify'; handle: string; amount: string }
  | { kind: 'invoice'; invoiceId: string }
)

export type InvoicePlan = { invoices: PlannedInvoice[]; steps: PlannedStep[]; shapes: Record<string, number> }

/**
 * Invoices and the payments made for them, seeded: paid in full, pending then settled (or left pending), in two
 * parts, overpaid, paid and then removed, underpaid and then corrected, paid before the invoice existed, unpaid.
 * What matching should make of it is computed from the bank's final truth (expected-invoices.ts), not from here.
 */
export function planInvoices(
  random: SeededRandom,
  count: number,
  accounts: readonly PaymentAccount[],
): InvoicePlan {
  const invoices: PlannedInvoice[] = []
  const steps: PlannedStep[] = []
  const shapes: Record<string, number> = {}
  let handles = 0
  const pay = (
    at: number,
    invoiceId: string,
    account: PaymentAccount,
    amount: Decimal,
    status: 'posted' | 'pending' = 'posted',
  ) => {
    const handle = `p${handles++}`
    steps.push({ at, kind: 'pay', handle, invoiceId, account, amount: amount.toFixed(2), status })
    return handle
  }
  for (let i = 0; i < count; i++) {
    const account = random.pick(accounts)
    const amount = new Decimal(random.int(1_000, 500_000)).dividedBy(100)
    const roll = random.next()
    const shape =
      roll < 0.5
        ? 'paid'
        : roll < 0.6
          ? 'pending'
          : roll < 0.68
            ? 'twoParts'
            : roll < 0.73
              ? 'overpaid'
              : roll < 0.78
                ? 'removed'
                : roll < 0.83
                  ? 'corrected'
                  : roll < 0.9
                    ? 'late'
                    : 'unpaid'
    shapes[shape] = (shapes[shape] ?? 0) + 1
    const invoice: PlannedInvoice = {
      id: `chaos-inv-${i}`,
      number: `${CHAOS_INVOICE_PREFIX}-${String(i).padStart(6, '0')}`,
      amount: amount.toFixed(2),
      currency: account.currency,
      customerName: `Chaos Customer ${i % 97}`,
      late: shape === 'late',
    }
    invoices.push(invoice)
    const at = random.next() * 0.7
    const later = () => at + 0.05 + random.next() * 0.15
    switch (shape) {
      case 'paid':
        pay(at, invoice.id, account, amount)
        break
      case 'pending': {
        const handle = pay(at, invoice.id, account, amount, 'pending')
        if (random.chance(0.8)) steps.push({ at: later(), kind: 'settle', handle })
        break
      }
      case 'twoParts': {
        const first = amount.times(random.int(20, 80)).dividedBy(100).toDecimalPlaces(2)
        pay(at, invoice.id, account, first)
        if (random.chance(0.7)) pay(later(), invoice.id, account, amount.minus(first))
        break
      }
      case 'overpaid':
        pay(at, invoice.id, account, amount.plus(random.int(1, 5_000) / 100))
        break
      case 'removed': {
        const handle = pay(at, invoice.id, account, amount)
        steps.push({ at: later(), kind: 'remove', handle })
        break
      }
      case 'corrected': {
        const handle = pay(at, invoice.id, account, amount.dividedBy(2).toDecimalPlaces(2))
        steps.push({ at: later(), kind: 'modify', handle, amount: amount.toFixed(2) })
        break
      }
      case 'late':
        pay(at, invoice.id, account, amount)
        steps.push({ at: later(), kind: 'invoice', invoiceId: invoice.id })
        break
    }
  }
  steps.sort((a, b) => a.at - b.at)
  return { invoices, steps, shapes }
}
