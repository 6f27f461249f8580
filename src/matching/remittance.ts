import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  activeDispositionsOf,
  appendAudit,
  enqueueMatches,
  loadInvoicesByNumber,
  loadInvoiceStates,
  loadManualMatches,
  removeManualMatch,
  setManualMatch,
  type Database,
  type MatchTransactionRow,
} from '../store/index.js'
import { auditActor } from '../users/index.js'
import {
  feeTolerance,
  normalizedInvoiceNumber,
  toUnits,
  withinFeeTolerance,
  type MatchConfig,
} from '../matcher/index.js'
import { MatchingRequestError } from './matching-errors.js'
import { inflow, inLock, learnPayer, unallocatedOf, type PersonInputDeps } from './person-inputs.js'
import { invoicesByReference, type AdviceReference } from './remittance-references.js'
import { splitRemittance, type AdviceLine } from './remittance-split.js'

/** A remittance advice or payout report for one bank line: the invoices it pays and the fee deducted. */
export type RemittanceAdvice = {
  /** Each line names its invoice by number, or by references read as the matcher reads a payment's (camt.054). */
  lines: ReadonlyArray<
    { invoiceNumber: string; amount: string } | { reference: AdviceReference; amount: string }
  >
  /** The fee the payer or PSP deducted; default 0. */
  fee?: string
  /** What the write-off is booked as: `bank_fee` (default) or `psp_fee` (a payout's). */
  feeReason?: 'bank_fee' | 'psp_fee'
  /** Where the advice came from, for the audit log (a camt.054 entry's references). */
  source?: string
}

export type RemittanceResult = {
  matches: Array<{ invoiceId: string; amount: string; writeOff: string | null }>
  writeOff: string
  difference: string
}

type Problem = { path: string; message: string }

/** An advice whose lines cannot settle the bank line, each problem named; nothing was applied. */
export function invalidRemittance(problems: Problem[]): MatchingRequestError {
  return new MatchingRequestError(
    'unprocessable',
    'invalid_remittance',
    `${problems.map((p) => `${p.path} ${p.message}`).join('; ')}. Nothing was applied.`,
    problems,
  )
}

/** The advice's lines with their invoices, or the problems of the lines that name none usable. */
async function adviceLines(
  trx: Kysely<Database>,
  advice: RemittanceAdvice,
  transaction: MatchTransactionRow,
): Promise<AdviceLine[]> {
  // Only what the payment holds per invoice is needed here, not what is free of it.
  const { held } = await unallocatedOf(trx, { id: transaction.id, amount: null })
  const numbered = advice.lines.flatMap((line) => ('invoiceNumber' in line ? [line.invoiceNumber] : []))
  const found = await loadInvoicesByNumber(trx, numbered.map(normalizedInvoiceNumber))
  const referenced = advice.lines.flatMap((line) => ('reference' in line ? [line.reference] : []))
  const named = await invoicesByReference(trx, referenced, transaction)
  const states = new Map(
    (
      await loadInvoiceStates(trx, [
        ...found.map((invoice) => invoice.id),
        ...named.flatMap((n) => n.invoices.map((invoice) => invoice.id)),
      ])
    ).map((s) => [s.invoice_id, s]),
  )
  const problems: Problem[] = []
  const lines: AdviceLine[] = []
  const seen = new Set<string>()
  let nextNamed = 0
  for (const [index, line] of advice.lines.entries()) {
    const path = `lines.${index + 1}`
    const label = 'invoiceNumber' in line ? line.invoiceNumber : line.reference.label
    const say = (message: string) => problems.push({ path, message: `${label}: ${message}` })
    const byReference = 'reference' in line ? named[nextNamed++]! : null
    const candidates = byReference
      ? byReference.invoices
      : found.filter((invoice) => invoice.normalized_number === normalizedInvoiceNumber(label))
    const live = candidates.filter((invoice) => !invoice.voided_at)
    if (byReference?.why) say(byReference.why)
    else if (candidates.length === 0) say('no invoice has this number')
    else if (live.length === 0) say('the invoice is void')
    else if (live.length > 1)
      say(
        byReference
          ? `names ${live.length} invoices (${live.map((invoice) => invoice.number).join(', ')}): a line pays one`
          : `${live.length} invoices have this number`,
      )
    const invoice = live.length === 1 ? live[0]! : null
    if (!invoice) continue
    if (seen.has(invoice.id)) {
      say('the invoice is on an earlier line already')
      continue
    }
    seen.add(invoice.id)
    if (invoice.currency !== transaction.currency) {
      say(`the invoice is in ${invoice.currency}, the bank line in ${transaction.currency}`)
      continue
    }
    // What this payment pays the invoice already is open to the advice: the advice replaces it.
    const state = states.get(invoice.id)
    const open = new Decimal(state?.amount_open ?? invoice.amount)
      .minus(state?.amount_pending ?? 0)
      .plus(held.get(invoice.id) ?? 0)
    const amount = new Decimal(line.amount)
    if (open.lte(0)) say('the invoice is paid already')
    else if (amount.gt(open))
      say(`${amount.toFixed(2)} is more than the ${open.toFixed(2)} the invoice has open`)
    else lines.push({ line: index + 1, invoiceId: invoice.id, invoiceNumber: invoice.number, amount, open })
  }
  if (problems.length > 0) throw invalidRemittance(problems)
  return lines
}

/**
 * Settles a bank line by its remittance advice (issue 16, lump sums), as one person's input in one transaction:
 * the advice's matches replace the payment's, one per invoice, the fee (and a difference within the fee
 * tolerance) written off on the invoice the split puts it on. An advice that does not add up applies nothing: 422
 * with the difference and the lines found.
 */
export async function importRemittance(
  deps: PersonInputDeps & { config: MatchConfig },
  transactionId: string,
  /** The advice, or how to read it off a document once the bank line is known (a camt.054 of several entries). */
  adviceFor: RemittanceAdvice | ((transaction: MatchTransactionRow) => RemittanceAdvice),
): Promise<RemittanceResult> {
  return inLock(deps, async (trx) => {
    const transaction = await inflow(trx, transactionId)
    const advice = typeof adviceFor === 'function' ? adviceFor(transaction) : adviceFor
    if ((await activeDispositionsOf(trx, [transactionId])).length > 0) {
      throw new MatchingRequestError(
        'conflict',
        'payment_disposed',
        `Transaction ${transactionId} has part of it disposed of: undo its dispositions before importing an advice.`,
      )
    }
    const lines = await adviceLines(trx, advice, transaction)
    const fee = new Decimal(advice.fee ?? 0)
    const tolerance = feeTolerance(deps.config, transaction.currency ?? undefined)
    const split = splitRemittance(lines, fee, new Decimal(transaction.amount ?? 0), (difference, owed) =>
      withinFeeTolerance(tolerance, toUnits(difference.toFixed()), toUnits(owed.toFixed())),
    )
    if (!split.ok) {
      const total = lines.reduce((sum, line) => sum.plus(line.amount), new Decimal(0))
      throw new MatchingRequestError(
        'unprocessable',
        'remittance_mismatch',
        `The advice's invoices (${total.toFixed(2)}) less its fee (${fee.toFixed(2)}) are ` +
          `${total.minus(fee).toFixed(2)}, the bank line ${new Decimal(transaction.amount ?? 0).toFixed(2)}: ` +
          `off by ${split.difference.toFixed(2)} (${split.why}). Nothing was applied; the split the advice proposes ` +
          'is in details: match it (POST /api/allocations) or correct the advice.',
        [
          ...lines.map((line) => ({
            path: `lines.${line.line}`,
            message: `invoice ${line.invoiceNumber} (${line.invoiceId}): ${line.amount.toFixed(2)} of ${line.open.toFixed(2)} open`,
          })),
          { path: 'difference', message: split.difference.toFixed(2) },
        ],
      )
    }
    const reason = advice.feeReason ?? 'bank_fee'
    const by = auditActor(deps.actor)
    for (const match of await loadManualMatches(trx, [transactionId]))
      await removeManualMatch(trx, transactionId, match.invoiceId, deps.now)
    const matches = split.matches.map((match) => ({
      invoiceId: match.invoiceId,
      amount: match.amount.toFixed(),
      writeOff: match.writeOff ? match.writeOff.toFixed() : null,
    }))
    for (const match of matches) {
      await setManualMatch(
        trx,
        {
          transactionId,
          invoiceId: match.invoiceId,
          amount: match.amount,
          ...(match.writeOff ? { writeOff: { amount: match.writeOff, reason } } : {}),
        },
        deps.now,
        by,
      )
    }
    const learned = await learnPayer(
      trx,
      transactionId,
      matches.map((match) => match.invoiceId),
      deps.now,
    )
    await enqueueMatches(trx, 'transaction', [transactionId])
    const result = { matches, writeOff: split.writeOff.toFixed(), difference: split.difference.toFixed() }
    await appendAudit(trx, deps.now, [
      {
        ...by,
        action: 'remittance.imported',
        entity: 'transaction',
        entityId: transactionId,
        payload: {
          ...result,
          fee: fee.toFixed(),
          reason,
          learned,
          ...(advice.source ? { source: advice.source } : {}),
        },
      },
    ])
    return result
  })
}
