import { Decimal } from 'decimal.js'
import { sql, type Kysely } from 'kysely'
import {
  activeAllocationsOfTransactions,
  appendAudit,
  learnCustomerLinks,
  enqueueMatches,
  findAllocation,
  findException,
  loadInvoicesById,
  loadInvoiceStates,
  loadManualMatches,
  loadMatchTransactions,
  rejectSuggestion,
  removeManualMatch,
  setManualMatch,
  type Database,
  type ManualMatchActor,
} from '../../store/index.js'
import { auditActor, type Actor } from '../../users/index.js'
import { rejectionIdsOf } from './apply-match-result.js'
import { linkKey } from './candidate-keys.js'
import { MatchingRequestError } from './matching-errors.js'
import { matchLockName } from './run-matching.js'

/** What a person's input needs: the store, the lock's namespace, the time and who acts. */
export type PersonInputDeps = { db: Kysely<Database>; lockNamespace: string; now: Date; actor: Actor }

async function inLock<T>(deps: PersonInputDeps, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return deps.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${matchLockName(deps.lockNamespace)}, 0))`.execute(
      trx,
    )
    return fn(trx)
  })
}

/**
 * A person taking over a transaction keeps what it holds: its engine allocations become the person's matches,
 * so a manual match adds to them and an unmatch removes only the one asked.
 */
async function takeOver(
  trx: Kysely<Database>,
  transactionId: string,
  now: Date,
  by: ManualMatchActor,
): Promise<void> {
  const manual = new Set((await loadManualMatches(trx, [transactionId])).map((item) => item.invoiceId))
  for (const allocation of await activeAllocationsOfTransactions(trx, [transactionId])) {
    if (manual.has(allocation.invoice_id)) continue
    await setManualMatch(
      trx,
      { transactionId, invoiceId: allocation.invoice_id, amount: allocation.amount },
      now,
      by,
    )
  }
}

/**
 * A person's match teaches who pays: the transaction's counterparty account (as the bank showed it) and name
 * become learned links of the invoices' customers of the master data. Returns what was learned, for the audit.
 */
async function learnPayer(
  trx: Kysely<Database>,
  transactionId: string,
  invoiceIds: readonly string[],
  now: Date,
): Promise<Array<{ customerId: string; kind: string; value: string }>> {
  const [transaction] = await loadMatchTransactions(trx, [transactionId])
  if (!transaction) return []
  const customers = [
    ...new Set((await loadInvoicesById(trx, invoiceIds)).flatMap((invoice) => invoice.customer_id ?? [])),
  ]
  const facts = [
    { kind: 'account' as const, value: transaction.counterparty_account_masked },
    { kind: 'name' as const, value: transaction.counterparty_name?.trim() || null },
  ]
  const links = customers.flatMap((customerId) =>
    facts.flatMap(({ kind, value }) => {
      const key = value ? linkKey(kind, value) : null
      return value && key
        ? [
            {
              customer_id: customerId,
              kind,
              value,
              key,
              transaction_id: transactionId,
              invoice_id: invoiceIds[0] ?? null,
            },
          ]
        : []
    }),
  )
  const learned = await learnCustomerLinks(trx, links, now)
  return learned.map((link) => ({ customerId: link.customer_id, kind: link.kind, value: link.value }))
}

async function inflow(trx: Kysely<Database>, transactionId: string) {
  const [row] = await loadMatchTransactions(trx, [transactionId])
  if (!row) throw new MatchingRequestError(404, 'not_found', `No mirrored transaction ${transactionId}.`)
  if (row.amount === null || new Decimal(row.amount).lte(0)) {
    throw new MatchingRequestError(
      409,
      'not_an_inflow',
      `Transaction ${transactionId} is not an inflow: only incoming payments settle invoices.`,
    )
  }
  return row
}

/**
 * A person's match of a transaction to an invoice. Without an amount, what the invoice has open (capped by the
 * matcher at what is left of the transaction).
 */
export async function addManualMatch(
  deps: PersonInputDeps,
  input: { transactionId: string; invoiceId: string; amount?: string },
): Promise<void> {
  await inLock(deps, async (trx) => {
    const transaction = await inflow(trx, input.transactionId)
    const [invoice] = await loadInvoicesById(trx, [input.invoiceId])
    if (!invoice) throw new MatchingRequestError(404, 'not_found', `No invoice ${input.invoiceId}.`)
    if (invoice.voided_at)
      throw new MatchingRequestError(409, 'invoice_void', `Invoice ${input.invoiceId} is void.`)
    const [state] = await loadInvoiceStates(trx, [input.invoiceId])
    const open = new Decimal(state?.amount_open ?? invoice.amount)
    const amount =
      input.amount ?? Decimal.min(open.gt(0) ? open : transaction.amount!, transaction.amount!).toFixed()
    const by = auditActor(deps.actor)
    await takeOver(trx, input.transactionId, deps.now, by)
    await setManualMatch(
      trx,
      { transactionId: input.transactionId, invoiceId: input.invoiceId, amount },
      deps.now,
      by,
    )
    const learned = await learnPayer(trx, input.transactionId, [input.invoiceId], deps.now)
    await enqueueMatches(trx, 'transaction', [input.transactionId])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'manual_match.created',
        entity: 'transaction',
        entityId: input.transactionId,
        payload: { invoiceId: input.invoiceId, amount, learned },
      },
    ])
  })
}

/** Unmatches one allocation: the person's input that the transaction does not pay that invoice. */
export async function removeAllocation(
  deps: PersonInputDeps,
  allocationId: string,
): Promise<{ transactionId: string }> {
  return inLock(deps, async (trx) => {
    const allocation = await findAllocation(trx, allocationId)
    if (!allocation) throw new MatchingRequestError(404, 'not_found', `No allocation ${allocationId}.`)
    if (allocation.reversed_at) {
      throw new MatchingRequestError(
        409,
        'allocation_reversed',
        `Allocation ${allocationId} is already reversed.`,
      )
    }
    const transactionId = allocation.transaction_id
    const by = auditActor(deps.actor)
    await takeOver(trx, transactionId, deps.now, by)
    await removeManualMatch(trx, transactionId, allocation.invoice_id, deps.now)
    // A zero match keeps the engine away from the pair (and from the transaction, as any manual match does).
    await setManualMatch(trx, { transactionId, invoiceId: allocation.invoice_id, amount: '0' }, deps.now, by)
    await enqueueMatches(trx, 'transaction', [transactionId])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'manual_match.removed',
        entity: 'allocation',
        entityId: allocationId,
        payload: { transactionId, invoiceId: allocation.invoice_id },
      },
    ])
    return { transactionId }
  })
}

async function openSuggestion(trx: Kysely<Database>, key: string, action: 'accept' | 'reject') {
  const exception = await findException(trx, key)
  if (!exception) throw new MatchingRequestError(404, 'not_found', `No exception ${key}.`)
  // A return is applied by the engine; rejecting it undoes it (the payment's allocations come back).
  const allowed = action === 'reject' ? ['suggested_match', 'payment_returned'] : ['suggested_match']
  if (!allowed.includes(exception.type)) {
    throw new MatchingRequestError(
      409,
      'not_a_suggestion',
      `Exception ${key} is a ${exception.type}, not a suggestion${action === 'reject' ? ' or a return' : ''}.`,
    )
  }
  if (exception.resolved_at) {
    throw new MatchingRequestError(
      409,
      'exception_resolved',
      `Exception ${key} is already resolved (${exception.resolution}).`,
    )
  }
  return exception as typeof exception & { transaction_id: string }
}

/** Accepting a suggestion makes its invoices the person's matches, each for what it has open. */
export async function acceptSuggestion(
  deps: PersonInputDeps,
  key: string,
): Promise<{ transactionId: string }> {
  return inLock(deps, async (trx) => {
    const exception = await openSuggestion(trx, key, 'accept')
    const transactionId = exception.transaction_id
    const invoices = await loadInvoicesById(trx, exception.invoice_ids)
    const states = new Map(
      (await loadInvoiceStates(trx, exception.invoice_ids)).map((s) => [s.invoice_id, s]),
    )
    const matches = invoices.map((invoice) => {
      const state = states.get(invoice.id)
      const open = state
        ? new Decimal(state.amount_open).minus(state.amount_pending)
        : new Decimal(invoice.amount)
      return { transactionId, invoiceId: invoice.id, amount: Decimal.max(open, 0).toFixed() }
    })
    for (const match of matches) await setManualMatch(trx, match, deps.now, auditActor(deps.actor))
    const learned = await learnPayer(trx, transactionId, exception.invoice_ids, deps.now)
    await enqueueMatches(trx, 'transaction', [transactionId])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'suggestion.accepted',
        entity: 'exception',
        entityId: key,
        payload: {
          transactionId,
          matches: matches.map(({ invoiceId, amount }) => ({ invoiceId, amount })),
          learned,
        },
      },
    ])
    return { transactionId }
  })
}

/** A rejected suggestion is never made again for the same transaction and invoice set. */
export async function declineSuggestion(
  deps: PersonInputDeps,
  key: string,
): Promise<{ transactionId: string }> {
  return inLock(deps, async (trx) => {
    const exception = await openSuggestion(trx, key, 'reject')
    const transactionId = exception.transaction_id
    const rejected = rejectionIdsOf(exception)
    await rejectSuggestion(trx, transactionId, rejected, deps.now)
    await enqueueMatches(trx, 'transaction', [
      transactionId,
      ...(exception.type === 'payment_returned' ? rejected : []),
    ])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'suggestion.rejected',
        entity: 'exception',
        entityId: key,
        payload: {
          transactionId,
          invoiceIds: exception.invoice_ids,
          ...(exception.type === 'payment_returned' ? { returnedTransactionId: rejected[0] } : {}),
        },
      },
    ])
    return { transactionId }
  })
}
