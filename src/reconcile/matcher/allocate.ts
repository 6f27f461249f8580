import type { TransactionPhase } from './canonical-order.js'
import { feeTolerance, withinFeeTolerance, type FeeTolerance, type MatchConfig } from './config.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { formatUnits, minUnits, toUnits } from './money.js'
import type {
  Allocation,
  AllocationRule,
  ManualAllocation,
  MatchException,
  MatchExceptionType,
  MatchTransaction,
  ReferenceField,
} from './types.js'

/** A transaction being allocated, with its amount in money units and its phase. */
export type Payment = { transaction: MatchTransaction; amount: bigint; phase: TransactionPhase }

/** Why an allocation was made, copied onto every allocation it produces. */
export type AllocationOrigin = {
  rule: AllocationRule
  field: ReferenceField | null
  madeBy: 'engine' | 'person'
  confidence: number
}

export type Described = Pick<Allocation, 'reference' | 'via' | 'evidence'> & { origin: AllocationOrigin }

/** Thrown when the caller's set is not closed: a transaction names an invoice the input lacks. */
export class MatcherInputError extends Error {
  readonly code = 'matcher_input_not_closed'
}

const MANUAL: AllocationOrigin = { rule: 'manual', field: null, madeBy: 'person', confidence: 100 }

/**
 * Allocates transactions to invoice ledgers one at a time; the caller feeds them in canonical order. Every
 * allocation takes at most the transaction's remaining amount and at most the invoice's open amount, so no
 * transaction is allocated more than its amount and amountPaid is exactly the sum of settled allocations.
 */
export class Allocator {
  readonly allocations: Allocation[] = []
  readonly exceptions: MatchException[] = []
  private readonly tolerance: FeeTolerance

  constructor(
    private readonly ledgers: ReadonlyMap<string, InvoiceLedger>,
    config: MatchConfig,
  ) {
    this.tolerance = feeTolerance(config)
  }

  ledger(invoiceId: string, transactionId: string): InvoiceLedger {
    const ledger = this.ledgers.get(invoiceId)
    if (!ledger) {
      throw new MatcherInputError(
        `transaction ${transactionId} names invoice ${invoiceId}, which is not in the input: pass the closed set`,
      )
    }
    return ledger
  }

  raise(
    type: MatchExceptionType,
    { transaction, phase }: Payment,
    fields: Partial<Pick<MatchException, 'invoiceIds' | 'amount' | 'confidence' | 'evidence'>> & {
      reasons: string[]
    },
  ): void {
    const invoiceIds = fields.invoiceIds ?? []
    this.exceptions.push({
      key: `${type}:${transaction.id}:${invoiceIds.join(',')}`,
      type,
      transactionId: transaction.id,
      invoiceIds,
      transferId: null,
      amount: fields.amount ?? null,
      confidence: fields.confidence ?? null,
      settled: phase === 'settled',
      reasons: fields.reasons,
      evidence: fields.evidence ?? [],
    })
  }

  /**
   * A person's matches, one per invoice (of duplicates the largest), each up to what is left of the transaction,
   * in invoice id order.
   */
  manual(payment: Payment, manual: readonly ManualAllocation[]): void {
    const { transaction } = payment
    const byInvoice = new Map<string, bigint>()
    for (const item of manual) {
      const amount = toUnits(item.amount)
      const current = byInvoice.get(item.invoiceId)
      if (current === undefined || amount > current) byInvoice.set(item.invoiceId, amount)
    }
    let rest = payment.amount
    for (const [invoiceId, requested] of [...byInvoice].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const ledger = this.ledger(invoiceId, transaction.id)
      if (ledger.invoice.void) continue
      if (ledger.invoice.currency !== transaction.currency) {
        this.raise('currency_mismatch', payment, {
          invoiceIds: [ledger.invoice.id],
          amount: formatUnits(requested),
          reasons: [`manual match to invoice ${ledger.invoice.number} in ${ledger.invoice.currency}`],
        })
        continue
      }
      const amount = minUnits(requested, rest)
      if (amount <= 0n) continue
      rest -= amount
      this.distribute(payment, amount, [ledger], () => ({
        origin: MANUAL,
        reference: null,
        via: null,
        evidence: [],
      }))
    }
  }

  /**
   * Pays `amount` into the ledgers in order, each up to its open amount (settled money) or its open amount not
   * yet held by pending money (tentative money). What is left over is an overpayment of the last invoice.
   */
  distribute(
    payment: Payment,
    amount: bigint,
    ledgers: readonly InvoiceLedger[],
    describe: (ledger: InvoiceLedger) => Described,
  ): void {
    const { transaction } = payment
    const settled = payment.phase === 'settled'
    let rest = amount
    for (const ledger of ledgers) {
      if (rest <= 0n) break
      const open = settled ? ledger.openForSettled() : ledger.openForTentative()
      if (open <= 0n) continue
      const take = minUnits(rest, open)
      const left = open - take
      // Rule 6: fees taken on the way may leave a small rest; settled money within tolerance pays the invoice.
      const writeOff =
        settled && left > 0n && withinFeeTolerance(this.tolerance, left, ledger.amount) ? left : 0n
      if (settled) {
        ledger.paid += take
        ledger.writtenOff += writeOff
      } else {
        ledger.pending += take
      }
      rest -= take
      const { origin, reference, via, evidence } = describe(ledger)
      this.allocations.push({
        transactionId: transaction.id,
        invoiceId: ledger.invoice.id,
        amount: take === ledger.amount ? ledger.amountText : formatUnits(take),
        writeOff: formatUnits(writeOff),
        settled,
        rule: origin.rule,
        field: origin.field,
        reference,
        via,
        confidence: origin.confidence,
        madeBy: origin.madeBy,
        evidence,
      })
    }
    if (rest <= 0n) return
    const last = ledgers[ledgers.length - 1] as InvoiceLedger
    if (settled) last.overpaid += rest
    this.raise('overpayment', payment, {
      evidence: [],
      invoiceIds: ledgers.map((ledger) => ledger.invoice.id),
      amount: formatUnits(rest),
      reasons: [
        ledgers.length > 1
          ? `${formatUnits(rest)} left after paying every named invoice`
          : `${formatUnits(rest)} more than invoice ${last.invoice.number} had open`,
      ],
    })
  }
}
