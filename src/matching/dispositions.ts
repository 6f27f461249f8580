import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import { z } from 'zod'
import {
  appendAudit,
  enqueueMatches,
  findDisposition,
  findException,
  getCustomers,
  insertDisposition,
  liveDispositionOf,
  loadInvoicesById,
  loadMatchTransactions,
  resolveException,
  setDispositionStatus,
  type Database,
  type DispositionRow,
} from '../store/index.js'
import { assertSecondPerson, auditActor, roleAllows } from '../users/index.js'
import type { DispositionKind } from '../matcher/index.js'
import { openRestOf, reapplyInvoiceWriteOffs } from './invoice-rest.js'
import { MatchingRequestError } from './matching-errors.js'
import { inLock, type PersonInputDeps } from './person-inputs.js'

/** The ledger account each kind books to unless the person names another (docs/closing.md). */
export const DEFAULT_DISPOSITION_ACCOUNTS: Readonly<Record<DispositionKind, string>> = {
  write_off: 'Write-offs',
  clearing: 'Suspense',
  refund: 'Refunds payable',
  on_account: 'Customer credit',
  ignore: 'Not receivables',
}

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
export const DispositionRequestSchema = z.object({
  kind: z.enum(['write_off', 'clearing', 'refund', 'on_account', 'ignore']),
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

/**
 * APPROVAL_THRESHOLD_AMOUNT: write-offs of more than the amount for their currency (`byCurrency`, else `all`)
 * wait for a second person's approval; a currency with neither never waits.
 */
export type ApprovalThreshold = { all: string | null; byCurrency: Readonly<Record<string, string>> }

export type DispositionDeps = PersonInputDeps & {
  /** null: no write-off waits. */
  approvalThreshold: ApprovalThreshold | null
}

/** Whether a write-off of `amount` in `currency` waits for a second person (compared as decimals). */
export function waitsForApproval(
  threshold: ApprovalThreshold | null,
  amount: Decimal,
  currency: string,
): boolean {
  const limit = threshold?.byCurrency[currency] ?? threshold?.all ?? null
  return limit !== null && amount.gt(limit)
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
      throw new MatchingRequestError('not_found', 'not_found', `No customer ${request.customerId}.`)
    return customer.id
  }
  const customers = new Set(
    (await loadInvoicesById(trx, invoiceIds)).flatMap((invoice) => invoice.customer_id ?? []),
  )
  if (customers.size !== 1) {
    throw new MatchingRequestError(
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
async function putInForce(trx: Kysely<Database>, row: DispositionRow, now: Date): Promise<void> {
  if (row.invoice_id !== null) return reapplyInvoiceWriteOffs(trx, row.invoice_id)
  if (row.exception_key !== null) await resolveException(trx, row.exception_key, `disposed:${row.kind}`, now)
  if (row.transaction_id !== null) await enqueueMatches(trx, 'transaction', [row.transaction_id])
}

/**
 * A person's disposition of what an open exception holds of a payment (issue 16): written off to an account,
 * booked to clearing, refunded, kept on account as the customer's credit, or ignored as not receivables. A
 * write-off above the approval threshold waits for a second person (maker-checker); the rest are in force at
 * once.
 */
export async function dispose(
  deps: DispositionDeps,
  key: string,
  request: DispositionRequest,
): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const exception = await findException(trx, key)
    if (!exception) throw new MatchingRequestError('not_found', 'not_found', `No exception ${key}.`)
    if (exception.resolved_at) {
      throw new MatchingRequestError(
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
      throw new MatchingRequestError(
        'conflict',
        'not_disposable',
        `Exception ${key} is a ${exception.type}: it holds no part of a payment to dispose of.`,
      )
    }
    if (!exception.settled) {
      throw new MatchingRequestError(
        'conflict',
        'payment_pending',
        `The payment of exception ${key} is still pending: dispose of it once the bank has posted it.`,
      )
    }
    const live = await liveDispositionOf(trx, key)
    if (live) {
      throw new MatchingRequestError(
        'conflict',
        'already_disposed',
        `Exception ${key} has disposition ${live.id} (${live.kind}, ${live.status}): undo it first.`,
      )
    }
    const [transaction] = await loadMatchTransactions(trx, [exception.transaction_id])
    if (!transaction) {
      throw new MatchingRequestError(
        'not_found',
        'not_found',
        `No mirrored transaction ${exception.transaction_id}.`,
      )
    }
    const customerId = await customerFor(trx, request, exception.invoice_ids)
    const amount = new Decimal(exception.amount)
    const currency = transaction.currency ?? ''
    const waits = request.kind === 'write_off' && waitsForApproval(deps.approvalThreshold, amount, currency)
    const by = auditActor(deps.actor)
    const row = await insertDisposition(trx, {
      exception_key: key,
      exception_type: exception.type,
      transaction_id: exception.transaction_id,
      kind: request.kind,
      amount: amount.toFixed(),
      currency,
      account: request.account ?? DEFAULT_DISPOSITION_ACCOUNTS[request.kind],
      customer_id: customerId,
      reason: request.reason,
      status: waits ? 'pending_approval' : 'active',
      made_by: by.actor,
      made_by_role: by.actorRole,
      created_at: deps.now,
    })
    if (!waits) await putInForce(trx, row, deps.now)
    await auditDispositionMade(trx, deps, row)
    return row
  })
}

/** A disposition as the API answers it and the audit log records it. */
/** Audits a disposition just made: `requested` while it waits for an approver, `created` once in force. */
export async function auditDispositionMade(
  trx: Kysely<Database>,
  deps: PersonInputDeps,
  row: DispositionRow,
): Promise<void> {
  await appendAudit(trx, deps.now, [
    {
      ...auditActor(deps.actor),
      action: row.status === 'pending_approval' ? 'disposition.requested' : 'disposition.created',
      entity: 'disposition',
      entityId: row.id,
      payload: presentDisposition(row),
    },
  ])
}

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
    createdAt: row.created_at.toISOString(),
    decidedBy: row.decided_by,
    decidedAt: row.decided_at?.toISOString() ?? null,
    undoneBy: row.undone_by,
    undoneAt: row.undone_at?.toISOString() ?? null,
  }
}

async function existing(trx: Kysely<Database>, id: string): Promise<DispositionRow> {
  const row = /^\d{1,18}$/.test(id) ? await findDisposition(trx, id) : undefined
  if (!row) throw new MatchingRequestError('not_found', 'not_found', `No disposition ${id}.`)
  return row
}

function conflict(row: DispositionRow, wanted: string): MatchingRequestError {
  return new MatchingRequestError(
    'conflict',
    'disposition_state',
    `Disposition ${row.id} is ${row.status}: only a ${wanted} one can be changed so.`,
  )
}

/**
 * A second person's decision on a write-off waiting for approval: `approve` puts it in force, `decline` ends it
 * (its exception stays open). The approver holds the approver role and is not the maker.
 */
export async function decideDisposition(
  deps: PersonInputDeps,
  id: string,
  decision: 'approve' | 'decline',
  /** Why, for the audit log (a decline's). */
  note?: string,
): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const row = await existing(trx, id)
    if (row.status !== 'pending_approval') throw conflict(row, 'pending_approval')
    if (decision === 'approve') assertSecondPerson(row.made_by, deps.actor)
    else if (!roleAllows(deps.actor.role, 'approver') && deps.actor.name !== row.made_by) {
      assertSecondPerson(row.made_by, deps.actor)
    }
    if (decision === 'approve' && row.invoice_id !== null) {
      const { rest } = await openRestOf(trx, row.invoice_id, row.id)
      if (rest.lt(row.amount)) {
        throw new MatchingRequestError(
          'conflict',
          'invoice_changed',
          `Invoice ${row.invoice_id} has only ${rest.toFixed()} open now, less than ${row.amount}: decline this write-off and make a new one.`,
        )
      }
    } else if (decision === 'approve') {
      const exception = row.exception_key === null ? undefined : await findException(trx, row.exception_key)
      if (!exception || exception.resolved_at || !new Decimal(exception.amount ?? 0).equals(row.amount)) {
        throw new MatchingRequestError(
          'conflict',
          'exception_changed',
          `Exception ${row.exception_key} no longer holds ${row.amount} open: decline this disposition and make a new one.`,
        )
      }
    }
    const to = decision === 'approve' ? 'active' : 'declined'
    if (!(await setDispositionStatus(trx, row.id, 'pending_approval', to, deps.actor.name, deps.now))) {
      throw conflict(row, 'pending_approval')
    }
    const decided = { ...row, status: to } as DispositionRow
    if (decision === 'approve') await putInForce(trx, decided, deps.now)
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: decision === 'approve' ? 'disposition.approved' : 'disposition.declined',
        entity: 'disposition',
        entityId: row.id,
        payload: {
          ...presentDisposition(decided),
          madeBy: row.made_by,
          ...(note ? { decisionNote: note } : {}),
        },
      },
    ])
    return (await findDisposition(trx, row.id)) as DispositionRow
  })
}

/**
 * Undoes a disposition in force (or withdraws one waiting for approval): its amount is part of the payment again,
 * and matching reopens the exception that held it; customer credit it applied is reversed. An undone invoice
 * write-off is open on the invoice again.
 */
export async function undoDisposition(deps: PersonInputDeps, id: string): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const row = await existing(trx, id)
    if (row.status !== 'active' && row.status !== 'pending_approval') throw conflict(row, 'active or pending')
    // Withdrawn while waiting for approval it never was in force: declined, so the journal never books it.
    const to = row.status === 'active' ? 'undone' : 'declined'
    if (!(await setDispositionStatus(trx, row.id, row.status, to, deps.actor.name, deps.now))) {
      throw conflict(row, row.status)
    }
    if (row.invoice_id !== null) await reapplyInvoiceWriteOffs(trx, row.invoice_id)
    if (row.transaction_id !== null) await enqueueMatches(trx, 'transaction', [row.transaction_id])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'disposition.undone',
        entity: 'disposition',
        entityId: row.id,
        payload: { ...presentDisposition(row), was: row.status },
      },
    ])
    return (await findDisposition(trx, row.id)) as DispositionRow
  })
}
