import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  activeDispositionsOf,
  appendAudit,
  enqueueMatches,
  insertRemittanceImport,
  loadInvoicesByNumber,
  loadInvoiceStates,
  loadManualMatches,
  pendingRemittanceImportsOf,
  removeManualMatch,
  setManualMatch,
  type Database,
  type MatchTransactionRow,
  type RemittanceImportRow,
} from '../store/index.js'
import { auditActor } from '../users/index.js'
import { askApprovalPolicy } from '../controls/index.js'
import type { Controls } from './dispositions.js'
import {
  feeTolerance,
  normalizedInvoiceNumber,
  toUnits,
  withinFeeTolerance,
  type MatchConfig,
} from '../matcher/index.js'
import { ClosingRequestError } from './closing-errors.js'
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
  /** The import's id; `pending_approval`: nothing applied until a second person approves it. */
  importId: string
  status: 'pending_approval' | 'active' | 'declined'
  matches: Array<{ invoiceId: string; amount: string; writeOff: string | null }>
  writeOff: string
  difference: string
}

type Problem = { path: string; message: string }

/** An advice whose lines cannot settle the bank line, each problem named; nothing was applied. */
export function invalidRemittance(problems: Problem[]): ClosingRequestError {
  return new ClosingRequestError(
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
 * with the difference and the lines found. When the approval policy says the write-off needs a second person, the
 * import waits (`pending_approval`) and changes nothing until approved (remittance-decisions.ts).
 */
export async function importRemittance(
  deps: PersonInputDeps & { config: MatchConfig; controls: Controls },
  transactionId: string,
  /** The advice, or how to read it off a document once the bank line is known (a camt.054 of several entries). */
  adviceFor: RemittanceAdvice | ((transaction: MatchTransactionRow) => RemittanceAdvice),
): Promise<RemittanceResult> {
  return inLock(deps, async (trx) => {
    const transaction = await inflow(trx, transactionId)
    const advice = typeof adviceFor === 'function' ? adviceFor(transaction) : adviceFor
    if ((await activeDispositionsOf(trx, [transactionId])).length > 0) {
      throw new ClosingRequestError(
        'conflict',
        'payment_disposed',
        `Transaction ${transactionId} has part of it disposed of: undo its dispositions before importing an advice.`,
      )
    }
    const [waiting] = await pendingRemittanceImportsOf(trx, transactionId)
    if (waiting) {
      throw new ClosingRequestError(
        'conflict',
        'remittance_pending',
        `Remittance import ${waiting.id} of transaction ${transactionId} waits for approval: decline or withdraw it first.`,
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
      throw new ClosingRequestError(
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
    const matches = split.matches.map((match) => ({
      invoiceId: match.invoiceId,
      amount: match.amount.toFixed(),
      writeOff: match.writeOff ? match.writeOff.toFixed() : null,
    }))
    const carrier = matches.find((match) => match.writeOff !== null)?.invoiceId ?? null
    // The fee and difference lower what the customer owes without the bank paying it: the approval policy decides.
    const decision = split.writeOff.gt(0)
      ? await askApprovalPolicy(trx, deps.controls.policy, {
          amount: split.writeOff,
          currency: transaction.currency,
          invoiceIds: carrier === null ? [] : [carrier],
          transactionId,
          maker: deps.actor.name,
          now: deps.now,
        })
      : null
    const waits = decision?.needsSecondPerson ?? false
    const by = auditActor(deps.actor)
    const row = await insertRemittanceImport(trx, {
      transaction_id: transactionId,
      write_off_invoice_id: carrier,
      write_off: split.writeOff.toFixed(),
      currency: transaction.currency ?? '',
      fee_reason: reason,
      matches: JSON.stringify(matches),
      fee: fee.toFixed(),
      difference: split.difference.toFixed(),
      source: advice.source ?? null,
      status: waits ? 'pending_approval' : 'active',
      made_by: by.actor,
      made_by_role: by.actorRole,
      created_at: deps.now,
    })
    const learned = waits ? [] : await applyRemittance(trx, row, deps.now)
    const result = {
      importId: row.id,
      status: row.status,
      matches,
      writeOff: split.writeOff.toFixed(),
      difference: split.difference.toFixed(),
    }
    await appendAudit(trx, deps.now, [
      {
        ...by,
        action: waits ? 'remittance.requested' : 'remittance.imported',
        entity: 'transaction',
        entityId: transactionId,
        payload: {
          ...result,
          fee: fee.toFixed(),
          reason,
          learned,
          policy: decision?.why ?? 'nothing written off',
          ...(advice.source ? { source: advice.source } : {}),
        },
      },
    ])
    return result
  })
}

/**
 * Puts an import in force: its matches replace the payment's, one per invoice, the write-off on the carrying
 * invoice, under its maker's name (who read the advice); returns what was learned of the payer.
 */
export async function applyRemittance(
  trx: Kysely<Database>,
  row: RemittanceImportRow,
  now: Date,
): Promise<Array<{ customerId: string; kind: string; value: string }>> {
  const by = { actor: row.made_by, actorRole: row.made_by_role }
  for (const match of await loadManualMatches(trx, [row.transaction_id]))
    await removeManualMatch(trx, row.transaction_id, match.invoiceId, now)
  for (const match of row.matches) {
    await setManualMatch(
      trx,
      {
        transactionId: row.transaction_id,
        invoiceId: match.invoiceId,
        amount: match.amount,
        ...(match.writeOff ? { writeOff: { amount: match.writeOff, reason: row.fee_reason } } : {}),
      },
      now,
      by,
    )
  }
  const learned = await learnPayer(
    trx,
    row.transaction_id,
    row.matches.map((match) => match.invoiceId),
    now,
  )
  await enqueueMatches(trx, 'transaction', [row.transaction_id])
  return learned
}
