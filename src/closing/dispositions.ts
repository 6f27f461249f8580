import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import { z } from 'zod'
import {
  appendAudit,
  enqueueMatches,
  findException,
  getCustomers,
  insertDisposition,
  liveDispositionOf,
  loadCustomersForMatching,
  loadInvoicesById,
  loadMatchTransactions,
  resolveException,
  type Database,
  type DispositionRow,
  type MatchTransactionRow,
} from '../store/index.js'
import { auditActor } from '../users/index.js'
import {
  askApprovalPolicy,
  chartAccount,
  type AccountKind,
  type ApprovalDecision,
  type ApprovalPolicy,
  type LedgerChart,
} from '../controls/index.js'
import type { DispositionKind } from '../matcher/index.js'
import { linkKey } from '../matching/index.js'
import { reapplyInvoiceWriteOffs } from './invoice-rest.js'
import { ClosingRequestError } from './closing-errors.js'
import { inLock, type PersonInputDeps } from './person-inputs.js'

/** The exceptions that hold part of a payment (their `amount`) until a person decides: those a person may dispose of. */
export const HOLDING_EXCEPTION_TYPES: ReadonlySet<string> = new Set([
  'unmatched_payment',
  'overpayment',
  'currency_mismatch',
  'ambiguous_reference',
  'suggested_match',
])

/** Optional trimmed text of at most `max` characters; empty is none. */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => value || undefined)
    .optional()

/** A disposition as a person asks for it (API body, dashboard form); an empty account or customer is none. */
/** What a person may do with what an exception holds (docs/closing.md, Dispositions). */
export const DISPOSITION_KINDS = ['write_off', 'clearing', 'refund', 'on_account', 'ignore'] as const

export const DispositionRequestSchema = z.object({
  kind: z.enum(DISPOSITION_KINDS),
  reason: z.string().trim().min(1, 'must say why').max(500),
  account: optionalText(100),
  /** on_account: whose credit it is; default the customer of the exception's invoices when they have one. */
  customerId: optionalText(255),
})

export type DispositionRequest = {
  kind: DispositionKind
  reason: string
  account?: string
  customerId?: string
}

/** The approval policy and the chart of accounts (issue 26): who must approve, and what may be booked to. */
export type Controls = { policy: ApprovalPolicy; chart: LedgerChart }

export type DispositionDeps = PersonInputDeps & { controls: Controls }

/** The chart's account for a person's operation, or 400 naming the field and the configured accounts. */
export function accountFromChart(chart: LedgerChart, kind: AccountKind, named: string | undefined): string {
  const found = chartAccount(chart, kind, named)
  if (found.ok) return found.account
  throw new ClosingRequestError('invalid', 'unknown_account', `account: ${found.message}.`, [
    { path: 'account', message: found.message },
  ])
}

/** The customers a payment is known to come from: its invoices' and those its payer's account or name is linked to. */
async function payerCustomers(
  trx: Kysely<Database>,
  transaction: MatchTransactionRow,
  invoiceIds: readonly string[],
): Promise<Set<string>> {
  const keys = [
    transaction.counterparty_account_masked && linkKey('account', transaction.counterparty_account_masked),
    transaction.counterparty_name && linkKey('name', transaction.counterparty_name),
  ].filter((key): key is string => !!key)
  const linked = await loadCustomersForMatching(trx, {
    ids: [],
    nameKeys: [],
    accountTails: [],
    linkKeys: keys,
  })
  const invoices = await loadInvoicesById(trx, invoiceIds)
  return new Set([...linked.map((c) => c.id), ...invoices.flatMap((invoice) => invoice.customer_id ?? [])])
}

async function customerFor(
  trx: Kysely<Database>,
  request: DispositionRequest,
  invoiceIds: readonly string[],
): Promise<string | null> {
  if (request.kind !== 'on_account') return null
  if (request.customerId) {
    const [customer] = await getCustomers(trx, [request.customerId])
    if (!customer)
      throw new ClosingRequestError('not_found', 'not_found', `No customer ${request.customerId}.`)
    return customer.id
  }
  const customers = new Set(
    (await loadInvoicesById(trx, invoiceIds)).flatMap((invoice) => invoice.customer_id ?? []),
  )
  if (customers.size !== 1) {
    throw new ClosingRequestError(
      'invalid',
      'customer_required',
      'Credit on account needs customerId: the exception’s invoices do not name exactly one customer.',
    )
  }
  return [...customers][0] as string
}

/**
 * Puts a disposition in force: its exception is resolved and the payment matched again without its amount; an
 * invoice write-off closes that much of the invoice.
 */
export async function putInForce(trx: Kysely<Database>, row: DispositionRow, now: Date): Promise<void> {
  if (row.invoice_id !== null) return reapplyInvoiceWriteOffs(trx, row.invoice_id)
  if (row.exception_key !== null) await resolveException(trx, row.exception_key, `disposed:${row.kind}`, now)
  if (row.transaction_id !== null) await enqueueMatches(trx, 'transaction', [row.transaction_id])
}

/**
 * A person's disposition of what an open exception holds of a payment (issue 16): written off to an account,
 * booked to clearing, refunded, kept on account as the customer's credit, or ignored as not receivables, to an
 * account of the chart for its kind. Any kind the approval policy says needs a second person waits (credit on
 * account of the payer's own customer is not controlled); the rest are in force at once.
 */
export async function dispose(
  deps: DispositionDeps,
  key: string,
  request: DispositionRequest,
): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const exception = await findException(trx, key)
    if (!exception) throw new ClosingRequestError('not_found', 'not_found', `No exception ${key}.`)
    if (exception.resolved_at) {
      throw new ClosingRequestError(
        'conflict',
        'exception_resolved',
        `Exception ${key} is already resolved (${exception.resolution}).`,
      )
    }
    if (
      !HOLDING_EXCEPTION_TYPES.has(exception.type) ||
      !exception.transaction_id ||
      exception.amount === null
    ) {
      throw new ClosingRequestError(
        'conflict',
        'not_disposable',
        `Exception ${key} is a ${exception.type}: it holds no part of a payment to dispose of.`,
      )
    }
    if (!exception.settled) {
      throw new ClosingRequestError(
        'conflict',
        'payment_pending',
        `The payment of exception ${key} is still pending: dispose of it once the bank has posted it.`,
      )
    }
    const live = await liveDispositionOf(trx, key)
    if (live) {
      throw new ClosingRequestError(
        'conflict',
        'already_disposed',
        `Exception ${key} has disposition ${live.id} (${live.kind}, ${live.status}): undo it first.`,
      )
    }
    const [transaction] = await loadMatchTransactions(trx, [exception.transaction_id])
    if (!transaction) {
      throw new ClosingRequestError(
        'not_found',
        'not_found',
        `No mirrored transaction ${exception.transaction_id}.`,
      )
    }
    const customerId = await customerFor(trx, request, exception.invoice_ids)
    const account = accountFromChart(deps.controls.chart, request.kind, request.account)
    const amount = new Decimal(exception.amount)
    const currency = transaction.currency ?? ''
    // Credit on account of the payer's own customer lowers nobody's receivable; of another customer it does.
    const controlled =
      customerId === null || !(await payerCustomers(trx, transaction, exception.invoice_ids)).has(customerId)
    const decision = controlled
      ? await askApprovalPolicy(trx, deps.controls.policy, {
          amount,
          currency,
          invoiceIds: [],
          transactionId: exception.transaction_id,
          maker: deps.actor.name,
          now: deps.now,
        })
      : null
    const waits = decision?.needsSecondPerson ?? false
    const by = auditActor(deps.actor)
    const row = await insertDisposition(trx, {
      exception_key: key,
      exception_type: exception.type,
      transaction_id: exception.transaction_id,
      kind: request.kind,
      amount: amount.toFixed(),
      currency,
      account,
      customer_id: customerId,
      reason: request.reason,
      status: waits ? 'pending_approval' : 'active',
      made_by: by.actor,
      made_by_role: by.actorRole,
      created_at: deps.now,
      controlled,
    })
    if (!waits) await putInForce(trx, row, deps.now)
    await auditDispositionMade(trx, deps, row, decision)
    return row
  })
}

/**
 * Audits a disposition just made: `requested` while it waits for an approver, `created` once in force, with the
 * approval policy's reason (null: not controlled).
 */
export async function auditDispositionMade(
  trx: Kysely<Database>,
  deps: PersonInputDeps,
  row: DispositionRow,
  decision: ApprovalDecision | null,
): Promise<void> {
  await appendAudit(trx, deps.now, [
    {
      ...auditActor(deps.actor),
      action: row.status === 'pending_approval' ? 'disposition.requested' : 'disposition.created',
      entity: 'disposition',
      entityId: row.id,
      payload: { ...presentDisposition(row), policy: decision?.why ?? 'not controlled' },
    },
  ])
}

/** A disposition as the API answers it and the audit log records it. */
export function presentDisposition(row: DispositionRow) {
  return {
    id: row.id,
    exceptionKey: row.exception_key,
    exceptionType: row.exception_type,
    transactionId: row.transaction_id,
    kind: row.kind,
    amount: row.amount,
    currency: row.currency,
    account: row.account,
    customerId: row.customer_id,
    reason: row.reason,
    /** An invoice write-off's (its reason is a write-off reason, its exception and transaction are null). */
    invoiceId: row.invoice_id,
    note: row.note,
    status: row.status,
    madeBy: row.made_by,
    madeByRole: row.made_by_role,
    createdAt: row.created_at.toISOString(),
    decidedBy: row.decided_by,
    approvedBy: row.status === 'active' || row.status === 'undone' ? row.decided_by : null,
    declinedBy: row.status === 'declined' ? row.decided_by : null,
    decidedAt: row.decided_at?.toISOString() ?? null,
    undoneBy: row.undone_by,
    undoneAt: row.undone_at?.toISOString() ?? null,
  }
}
