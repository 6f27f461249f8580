/**
 * Judges what the engine did with one payment against what is true for it: every automatic action (an application,
 * the amount it allocated to each invoice, a write-off, a return that reverses an inflow) is right or wrong, and
 * the person's outcomes (a suggestion and what it proposes, nothing done) are counted apart.
 */
import { Decimal } from 'decimal.js'
import { paymentOutcome, type MatchPaymentsResult, type PaymentOutcome } from '../../src/matcher/index.js'
import type { RealisticExpect } from './realistic-book.js'

export type Outcome = RealisticExpect['outcome']

const OUTCOMES: Record<PaymentOutcome['outcome'], Outcome> = {
  applied: 'applied',
  suggested_match: 'suggested',
  unmatched_payment: 'unmatched',
  ambiguous_reference: 'ambiguous',
  currency_mismatch: 'currency_mismatch',
  payment_returned: 'returned',
  none: 'none',
}

/** The kinds of wrong automatic action: applied where it must not, to other invoices or amounts, written off, returned. */
export type WrongKind = 'application' | 'amount' | 'write_off' | 'return'

export type Judgement = {
  outcome: Outcome
  invoiceIds: string[]
  codes: string[]
  /** What the engine allocated of this payment, per invoice. */
  allocations: Record<string, string>
  writeOffs: Array<{ invoiceId: string; amount: string; reason: string }>
  /** The exceptions raised on this payment, by type (an overpayment is not an outcome of its own). */
  exceptions: string[]
  /** Inflows this outflow returned by itself (their allocations reversed or reduced). */
  returned: string[]
  wrong: Array<{ kind: WrongKind; detail: string }>
  /** The case says apply, and the engine applied exactly that (invoices, amounts, write-offs). */
  appliedRight: boolean
  /** The case says return, and the engine returned exactly that inflow. */
  returnedRight: boolean
  /** The engine proposed exactly the case's invoices (a suggestion or an ambiguity). */
  suggestedRight: boolean
  /** Nothing proposed: no application, no return, no suggestion naming an invoice. */
  nothingDone: boolean
}

const same = (a: string, b: string) => new Decimal(a).equals(b)
const sorted = (ids: readonly string[]) => [...ids].sort().join(',')

/**
 * `expectedAmount(invoiceId)`: what a case that leaves `allocations` out expects an invoice to receive (its open
 * amount less the write-off the case names); undefined skips the amount check. The issue-15 corpus names no
 * amounts, and write-offs only for its residual cases (`writeOffsNamed` false: the others' are not judged), and a
 * return there may return any of the case's inflows.
 */
export function judgePayment(
  result: MatchPaymentsResult,
  paymentId: string,
  expect: RealisticExpect,
  expectedAmount: (invoiceId: string) => string | undefined,
  writeOffsNamed = true,
): Judgement {
  const found = paymentOutcome(result, paymentId)
  const mine = result.allocations.filter(
    (item) => item.transactionId === paymentId && item.madeBy === 'engine',
  )
  const allocations: Record<string, string> = {}
  for (const item of mine)
    allocations[item.invoiceId] = new Decimal(allocations[item.invoiceId] ?? 0).plus(item.amount).toFixed()
  const writeOffs = mine
    .filter((item) => item.writeOff !== '0')
    .map((item) => ({ invoiceId: item.invoiceId, amount: item.writeOff, reason: item.writeOffReason ?? '' }))
  const returned = result.returns
    .filter((item) => item.outflowTransactionId === paymentId && (!item.partial || item.target !== null))
    .map((item) => item.inflowTransactionId)
  const wrong: Judgement['wrong'] = []
  const appliedIds = Object.keys(allocations)
  if (appliedIds.length > 0) {
    if (expect.outcome !== 'applied')
      wrong.push({
        kind: 'application',
        detail: `applied to ${sorted(appliedIds)}; the case says ${expect.outcome}`,
      })
    else if (sorted(appliedIds) !== sorted(expect.invoiceIds))
      wrong.push({
        kind: 'application',
        detail: `applied to ${sorted(appliedIds)}, not ${sorted(expect.invoiceIds)}`,
      })
    else {
      for (const id of appliedIds) {
        const want = expect.allocations?.[id] ?? expectedAmount(id)
        if (want !== undefined && !same(allocations[id] as string, want))
          wrong.push({ kind: 'amount', detail: `${id}: allocated ${allocations[id]}, not ${want}` })
      }
    }
  }
  const wantWriteOffs = expect.writeOffs ?? []
  for (const off of writeOffsNamed ? writeOffs : []) {
    const want = wantWriteOffs.find((item) => item.invoiceId === off.invoiceId)
    if (!want || !same(want.amount, off.amount) || want.reason !== off.reason)
      wrong.push({ kind: 'write_off', detail: `${off.invoiceId}: wrote off ${off.amount} (${off.reason})` })
  }
  for (const inflow of returned) {
    if (expect.outcome !== 'returned' || (expect.returns && expect.returns.inflowId !== inflow))
      wrong.push({ kind: 'return', detail: `returned ${inflow}; the case says ${expect.outcome}` })
  }
  const writeOffsRight =
    !writeOffsNamed ||
    (wantWriteOffs.length === writeOffs.length &&
      wantWriteOffs.every((want) =>
        writeOffs.some(
          (off) =>
            off.invoiceId === want.invoiceId && same(off.amount, want.amount) && off.reason === want.reason,
        ),
      ))
  const outcome = OUTCOMES[found.outcome]
  return {
    outcome,
    invoiceIds: found.invoiceIds,
    codes: found.evidence.map((item) => item.code),
    allocations,
    writeOffs,
    exceptions: result.exceptions.filter((item) => item.transactionId === paymentId).map((item) => item.type),
    returned,
    wrong,
    appliedRight:
      expect.outcome === 'applied' && appliedIds.length > 0 && wrong.length === 0 && writeOffsRight,
    returnedRight: expect.outcome === 'returned' && returned.length > 0 && wrong.length === 0,
    suggestedRight:
      (outcome === 'suggested' || outcome === 'ambiguous') &&
      sorted(found.invoiceIds) === sorted(expect.invoiceIds),
    nothingDone: appliedIds.length === 0 && returned.length === 0 && found.invoiceIds.length === 0,
  }
}
