import { Decimal } from 'decimal.js'
import { withinFeeTolerance, type MatchConfig } from './config.js'
import type { TransactionPhase } from './canonical-order.js'
import type { NamedInvoice } from './find-references.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { ZERO, toAmountString, toDecimal } from './money.js'
import type {
  Allocation,
  AllocationRule,
  ManualAllocation,
  MatchException,
  MatchExceptionType,
  MatchTransaction,
  ReferenceField,
} from './types.js'

/** Why an allocation was made, copied onto every allocation it produces. */
export type AllocationOrigin = {
  rule: AllocationRule
  field: ReferenceField | null
  madeBy: 'engine' | 'person'
  confidence: number
}

/** Thrown when the caller's set is not closed: a transaction names an invoice the input lacks. */
export class MatcherInputError extends Error {
  readonly code = 'matcher_input_not_closed'
}

const DESCRIPTION_CONFIDENCE = 90

/** A reference in a remittance field, or any RF or SWIFT code, is certain; free text in a description less so. */
export function referenceConfidence(field: ReferenceField, via: NamedInvoice['via']): number {
  if (via !== 'text') return 100
  return field === 'paymentReference' || field === 'customerReference' ? 100 : DESCRIPTION_CONFIDENCE
}

/**
 * Allocates transactions to invoice ledgers one at a time; the caller feeds them in canonical order. Every
 * allocation takes at most the transaction's remaining amount and at most the invoice's open amount, so no
 * transaction is allocated more than its amount and amountPaid is exactly the sum of settled allocations.
 */
export class Allocator {
  readonly allocations: Allocation[] = []
  readonly exceptions: MatchException[] = []

  constructor(
    private readonly ledgers: ReadonlyMap<string, InvoiceLedger>,
    private readonly config: MatchConfig,
  ) {}

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
    transaction: MatchTransaction,
    phase: TransactionPhase,
    fields: Partial<Pick<MatchException, 'invoiceIds' | 'amount' | 'confidence'>> & { reasons: string[] },
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
    })
  }

  /** Rules 2–4: the invoices a reference named, in the order named. */
  byReference(
    transaction: MatchTransaction,
    phase: TransactionPhase,
    field: ReferenceField,
    named: NamedInvoice[],
  ) {
    const ledgers = named.map((item) => this.ledger(item.invoiceId, transaction.id))
    const live = ledgers.filter((ledger) => !ledger.invoice.void)
    if (live.length === 0) {
      this.raise('unmatched_payment', transaction, phase, {
        invoiceIds: ledgers.map((ledger) => ledger.invoice.id),
        amount: toAmountString(toDecimal(transaction.amount)),
        reasons: [`${field} names only void invoices`],
      })
      return
    }
    const mismatched = live.filter((ledger) => ledger.invoice.currency !== transaction.currency)
    if (mismatched.length > 0) {
      this.raise('currency_mismatch', transaction, phase, {
        invoiceIds: mismatched.map((ledger) => ledger.invoice.id),
        amount: toAmountString(toDecimal(transaction.amount)),
        reasons: mismatched.map(
          (ledger) =>
            `invoice ${ledger.invoice.number} is in ${ledger.invoice.currency}, the payment in ${transaction.currency}`,
        ),
      })
      return
    }
    const references = new Map(named.map((item) => [item.invoiceId, item]))
    this.distribute(transaction, phase, toDecimal(transaction.amount), live, (ledger) => {
      const item = references.get(ledger.invoice.id) as NamedInvoice
      return {
        origin: {
          rule: 'reference',
          field,
          madeBy: 'engine',
          confidence: referenceConfidence(field, item.via),
        },
        reference: item.reference,
        via: item.via,
      }
    })
  }

  /**
   * A person's matches, one per invoice (of duplicates the largest), each up to what is left of the transaction,
   * in invoice id order.
   */
  manual(transaction: MatchTransaction, phase: TransactionPhase, manual: readonly ManualAllocation[]): void {
    const byInvoice = new Map<string, Decimal>()
    for (const item of manual) {
      const amount = toDecimal(item.amount)
      const current = byInvoice.get(item.invoiceId)
      if (!current || amount.gt(current)) byInvoice.set(item.invoiceId, amount)
    }
    let rest = toDecimal(transaction.amount)
    for (const [invoiceId, requested] of [...byInvoice].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const ledger = this.ledger(invoiceId, transaction.id)
      if (ledger.invoice.void) continue
      if (ledger.invoice.currency !== transaction.currency) {
        this.raise('currency_mismatch', transaction, phase, {
          invoiceIds: [ledger.invoice.id],
          amount: toAmountString(requested),
          reasons: [`manual match to invoice ${ledger.invoice.number} in ${ledger.invoice.currency}`],
        })
        continue
      }
      const amount = Decimal.min(requested, rest)
      if (amount.lte(0)) continue
      rest = rest.minus(amount)
      const origin: AllocationOrigin = { rule: 'manual', field: null, madeBy: 'person', confidence: 100 }
      this.distribute(transaction, phase, amount, [ledger], () => ({ origin, reference: null, via: null }))
    }
  }

  /**
   * Pays `amount` into the ledgers in order, each up to its open amount (settled money) or its open amount not
   * yet held by pending money (tentative money). What is left over is an overpayment of the last invoice.
   */
  distribute(
    transaction: MatchTransaction,
    phase: TransactionPhase,
    amount: Decimal,
    ledgers: readonly InvoiceLedger[],
    describe: (ledger: InvoiceLedger) => Pick<Allocation, 'reference' | 'via'> & { origin: AllocationOrigin },
  ): void {
    const settled = phase === 'settled'
    let rest = amount
    for (const ledger of ledgers) {
      if (rest.lte(0)) break
      const open = settled ? ledger.openForSettled() : ledger.openForTentative()
      if (open.lte(0)) continue
      const take = Decimal.min(rest, open)
      const left = open.minus(take)
      // Rule 6: fees taken on the way may leave a small rest; settled money within tolerance pays the invoice.
      const writeOff =
        settled && left.gt(0) && withinFeeTolerance(this.config, left, ledger.amount) ? left : ZERO
      if (settled) {
        ledger.paid = ledger.paid.plus(take)
        ledger.writtenOff = ledger.writtenOff.plus(writeOff)
      } else {
        ledger.pending = ledger.pending.plus(take)
      }
      rest = rest.minus(take)
      const { origin, reference, via } = describe(ledger)
      this.allocations.push({
        transactionId: transaction.id,
        invoiceId: ledger.invoice.id,
        amount: toAmountString(take),
        writeOff: toAmountString(writeOff),
        settled,
        rule: origin.rule,
        field: origin.field,
        reference,
        via,
        confidence: origin.confidence,
        madeBy: origin.madeBy,
      })
    }
    if (rest.lte(0)) return
    const last = ledgers[ledgers.length - 1] as InvoiceLedger
    if (settled) last.overpaid = last.overpaid.plus(rest)
    this.raise('overpayment', transaction, phase, {
      invoiceIds: ledgers.map((ledger) => ledger.invoice.id),
      amount: toAmountString(rest),
      reasons: [
        ledgers.length > 1
          ? `${toAmountString(rest)} left after paying every named invoice`
          : `${toAmountString(rest)} more than invoice ${last.invoice.number} had open`,
      ],
    })
  }
}
