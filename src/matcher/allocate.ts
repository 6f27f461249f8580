import { writeOffAccountFor, type MatchConfig } from './config.js'
import type { InvoiceLedger } from './invoice-ledger.js'
import { formatUnits, minUnits, toUnits } from './money.js'
import type { Payment } from './payment.js'
import { explainShortfall } from './residuals.js'
import type {
  Allocation,
  AllocationRule,
  ManualAllocation,
  MatchException,
  MatchExceptionType,
  ReferenceField,
  WriteOffReason,
} from './types.js'
import { WRITE_OFF_REASONS } from './types.js'
import type { LedgerSet } from './ledger-set.js'

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

/** The rest of an invoice a person's match (from a remittance advice) writes off, and why. */
type StatedWriteOff = { units: bigint; reason: WriteOffReason }

function statedWriteOff(item: ManualAllocation): StatedWriteOff | null {
  if (!item.writeOff || !item.writeOffReason) return null
  if (!(WRITE_OFF_REASONS as readonly string[]).includes(item.writeOffReason)) return null
  return { units: toUnits(item.writeOff), reason: item.writeOffReason as WriteOffReason }
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
    private readonly ledgers: LedgerSet,
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
   * in invoice id order. What they leave of the payment stays in an exception (issue 16: a person's match must
   * never leave part of a payment unaccounted for): `currency_mismatch` when a match named an invoice in another
   * currency, else `unmatched_payment`.
   */
  manual(payment: Payment, manual: readonly ManualAllocation[]): void {
    const { transaction } = payment
    const byInvoice = new Map<string, ManualAllocation>()
    for (const item of manual) {
      const current = byInvoice.get(item.invoiceId)
      if (current === undefined || toUnits(item.amount) > toUnits(current.amount))
        byInvoice.set(item.invoiceId, item)
    }
    let rest = payment.amount
    const mismatched: InvoiceLedger[] = []
    for (const [invoiceId, item] of [...byInvoice].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const requested = toUnits(item.amount)
      const ledger = this.ledger(invoiceId, transaction.id)
      if (ledger.invoice.void) continue
      if (ledger.invoice.currency !== transaction.currency) {
        if (requested > 0n) mismatched.push(ledger)
        continue
      }
      const amount = minUnits(requested, rest)
      if (amount <= 0n) continue
      rest -= amount
      // More than the invoice has open is an overpayment of it: that exception holds the surplus.
      this.distribute(
        payment,
        amount,
        [ledger],
        () => ({ origin: MANUAL, reference: null, via: null, evidence: [] }),
        statedWriteOff(item),
      )
    }
    if (rest <= 0n) return
    const allocated = rest < payment.amount
    if (mismatched.length > 0) {
      this.raise('currency_mismatch', payment, {
        invoiceIds: mismatched.map((ledger) => ledger.invoice.id),
        amount: formatUnits(rest),
        reasons: mismatched.map(
          (ledger) => `manual match to invoice ${ledger.invoice.number} in ${ledger.invoice.currency}`,
        ),
      })
      return
    }
    this.raise('unmatched_payment', payment, {
      amount: formatUnits(rest),
      reasons: [
        allocated
          ? `${formatUnits(rest)} of the payment is not allocated by a person's matches`
          : 'a person unmatched the payment',
      ],
    })
  }

  /** Customer credit of a payment (a person kept it on account) paying an open invoice of that customer. */
  credit(payment: Payment, ledger: InvoiceLedger, amount: bigint): void {
    ledger.paid += amount
    this.allocations.push({
      transactionId: payment.transaction.id,
      invoiceId: ledger.invoice.id,
      amount: formatUnits(amount),
      writeOff: '0',
      writeOffReason: null,
      writeOffAccount: null,
      settled: true,
      rule: 'credit',
      field: null,
      reference: null,
      via: null,
      confidence: 100,
      madeBy: 'engine',
      evidence: [],
    })
  }

  /**
   * Pays `amount` into the ledgers in order, each up to its open amount (settled money) or its open amount not
   * yet held by pending money (tentative money). What is left over is an overpayment of the last invoice.
   * `keep_rest`: a rest the last invoice is left with stays open (a remittance stated why it is short).
   */
  distribute(
    payment: Payment,
    amount: bigint,
    ledgers: readonly InvoiceLedger[],
    describe: (ledger: InvoiceLedger) => Described,
    stated: StatedWriteOff | 'keep_rest' | null = null,
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
      // Credit notes are booked with the first settled money; otherwise a rest the last invoice is left with may
      // be a fee, a discount or within tolerance (residuals.ts), and is written off with its reason.
      const credits = settled && ledger.credits > 0n ? ledger.bookCredits() : 0n
      // A remittance advice's write-off explains the rest when it is exactly that much.
      const shortfall =
        credits === 0n && left > 0n && ledger === ledgers[ledgers.length - 1] && stated !== 'keep_rest'
          ? settled && stated?.units === left
            ? stated
            : explainShortfall(this.config, payment, ledger, left)
          : null
      const writeOff = credits + (shortfall ? left : 0n)
      const reason = credits > 0n ? 'credit_note' : (shortfall?.reason ?? null)
      if (settled) {
        ledger.paid += take
        ledger.writtenOff += writeOff - credits
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
        writeOffReason: reason,
        writeOffAccount: reason === null ? null : writeOffAccountFor(this.config, reason),
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
