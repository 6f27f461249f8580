import { Decimal } from 'decimal.js'
import type { PaymentAccountingRows } from '../store/index.js'
import { HOLDING_EXCEPTION_TYPES } from './dispositions.js'

/** A payment whose amount is not exactly accounted for, with the parts that were found. */
export type UnaccountedPayment = {
  transactionId: string
  amount: string
  allocated: string
  disposed: string
  inExceptions: string
  returned: boolean
  /** Customer credit applied beyond what was kept on account (should be none). */
  creditOverdrawn: string
}

function add(map: Map<string, Decimal>, key: string | null, amount: string | null): void {
  if (key === null || amount === null) return
  map.set(key, (map.get(key) ?? new Decimal(0)).plus(amount))
}

/**
 * Issue 16's invariant: every payment's amount is exactly allocated (a person's or the engine's allocations,
 * customer credit aside), disposed of (written off, clearing, refunded, on account, ignored) or held by open
 * exceptions; a returned payment is accounted for by its open return, a partly returned one by that part and the
 * rest. Customer credit applied to invoices never
 * exceeds what was kept on account. Returns the payments that break it (none when the books add up).
 */
export function unaccountedPayments(rows: PaymentAccountingRows): UnaccountedPayment[] {
  const allocated = new Map<string, Decimal>()
  const credited = new Map<string, Decimal>()
  const disposed = new Map<string, Decimal>()
  const onAccount = new Map<string, Decimal>()
  const held = new Map<string, Decimal>()
  const returned = new Map<string, Decimal>()
  for (const row of rows.allocations) {
    add(row.rule === 'credit' ? credited : allocated, row.transaction_id, row.amount)
  }
  for (const row of rows.dispositions) {
    add(disposed, row.transaction_id, row.amount)
    if (row.kind === 'on_account') add(onAccount, row.transaction_id, row.amount)
  }
  for (const row of rows.exceptions) {
    if (HOLDING_EXCEPTION_TYPES.has(row.type)) add(held, row.transaction_id, row.amount)
    // payment_returned:<outflow>:<returned inflow>, for what went back out (all of it, or part)
    if (row.type === 'payment_returned') add(returned, row.key.split(':')[2] ?? '', row.amount)
  }
  const zero = new Decimal(0)
  return rows.payments.flatMap((payment) => {
    const parts = {
      allocated: allocated.get(payment.id) ?? zero,
      disposed: disposed.get(payment.id) ?? zero,
      inExceptions: held.get(payment.id) ?? zero,
    }
    const back = returned.get(payment.id) ?? zero
    const isReturned = back.greaterThanOrEqualTo(payment.amount)
    const total = isReturned
      ? new Decimal(payment.amount)
      : parts.allocated.plus(parts.disposed).plus(parts.inExceptions).plus(back)
    const overdrawn = Decimal.max(
      (credited.get(payment.id) ?? zero).minus(onAccount.get(payment.id) ?? zero),
      0,
    )
    if (total.equals(payment.amount) && overdrawn.isZero()) return []
    return [
      {
        transactionId: payment.id,
        amount: payment.amount,
        allocated: parts.allocated.toFixed(),
        disposed: parts.disposed.toFixed(),
        inExceptions: parts.inExceptions.toFixed(),
        returned: isReturned,
        creditOverdrawn: overdrawn.toFixed(),
      },
    ]
  })
}
