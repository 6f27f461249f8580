import { Decimal } from 'decimal.js'
import { sql, type Kysely } from 'kysely'
import {
  activeAllocationsOfTransactions,
  activeDispositionsOf,
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
} from '../store/index.js'
import { isIntermediaryName } from '../matcher/index.js'
import { auditActor, type Actor } from '../users/index.js'
import { linkKey, matchLockName, rejectionIdsOf } from '../matching/index.js'
import { ClosingRequestError } from './closing-errors.js'

/** What a person's input needs: the store, the lock's namespace, the time and who acts. */
export type PersonInputDeps = { db: Kysely<Database>; lockNamespace: string; now: Date; actor: Actor }

/** Runs `fn` in one transaction holding the matching lock, so no run interleaves with a person's input. */
export async function inLock<T>(
  deps: PersonInputDeps,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
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
export async function learnPayer(
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
  // A payment intermediary (PSP, payment agent, factor), or one payment for several customers, teaches nothing:
  // its name and account pay for many customers (issue 25 rule 5).
  if (customers.length !== 1 || isIntermediaryName(transaction.counterparty_name)) return []
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

export async function inflow(trx: Kysely<Database>, transactionId: string) {
  const [row] = await loadMatchTransactions(trx, [transactionId])
  if (!row)
    throw new ClosingRequestError('not_found', 'not_found', `No mirrored transaction ${transactionId}.`)
  if (row.amount === null || new Decimal(row.amount).lte(0)) {
    throw new ClosingRequestError(
      'conflict',
      'not_an_inflow',
      `Transaction ${transactionId} is not an inflow: only incoming payments settle invoices.`,
    )
  }
  return row
}

/**
 * How a person's match changes what the transaction pays the invoice: `add` adds the amount to what it pays
 * already (a new pair starts at 0), `replace` sets it to the amount, reversing only that pair's allocation.
 */
export type ManualMatchMode = 'add' | 'replace'

/** The part of a payment no allocation (but customer credit's) and no disposition in force holds. */
export async function unallocatedOf(
  trx: Kysely<Database>,
  transaction: { id: string; amount: string | null },
): Promise<{ free: Decimal; held: Map<string, Decimal> }> {
  const held = new Map<string, Decimal>()
  let used = new Decimal(0)
  for (const allocation of await activeAllocationsOfTransactions(trx, [transaction.id])) {
    if (allocation.rule === 'credit') continue
    used = used.plus(allocation.amount)
    held.set(
      allocation.invoice_id,
      (held.get(allocation.invoice_id) ?? new Decimal(0)).plus(allocation.amount),
    )
  }
  for (const disposition of await activeDispositionsOf(trx, [transaction.id]))
    used = used.plus(disposition.amount)
  return { free: Decimal.max(new Decimal(transaction.amount ?? 0).minus(used), 0), held }
}

/**
 * A person's match of a transaction to an invoice (issue 16: it adds up, never silently unbalances). Without an
 * amount: what the invoice has open, capped at what is left of the payment. A match may not take more of the
 * payment than no allocation and no disposition holds; what a replace frees stays in an exception.
 */
export async function addManualMatch(
  deps: PersonInputDeps,
  input: { transactionId: string; invoiceId: string; amount?: string; mode?: ManualMatchMode },
): Promise<void> {
  const mode = input.mode ?? 'add'
  await inLock(deps, async (trx) => {
    const transaction = await inflow(trx, input.transactionId)
    const [invoice] = await loadInvoicesById(trx, [input.invoiceId])
    if (!invoice) throw new ClosingRequestError('not_found', 'not_found', `No invoice ${input.invoiceId}.`)
    if (invoice.voided_at)
      throw new ClosingRequestError('conflict', 'invoice_void', `Invoice ${input.invoiceId} is void.`)
    const [state] = await loadInvoiceStates(trx, [input.invoiceId])
    const { free, held } = await unallocatedOf(trx, transaction)
    const current = held.get(input.invoiceId) ?? new Decimal(0)
    const available = mode === 'add' ? free : free.plus(current)
    const open = new Decimal(state?.amount_open ?? invoice.amount)
    const asked = input.amount
      ? new Decimal(input.amount)
      : Decimal.min(open.gt(0) ? open : available, available)
    if (asked.lte(0) || asked.gt(available)) {
      throw new ClosingRequestError(
        'conflict',
        'exceeds_payment',
        `Transaction ${input.transactionId} has ${free.toFixed(2)} not yet allocated or disposed` +
          (mode === 'replace' ? ` and pays invoice ${input.invoiceId} ${current.toFixed(2)}` : '') +
          `: a ${mode} of ${asked.toFixed(2)} would take more than the payment. Use mode "replace" to change` +
          ' what it pays an invoice, or dispose of an invoice’s rest (POST /api/exceptions/{key}/dispose).',
      )
    }
    const amount = (mode === 'add' ? current.plus(asked) : asked).toFixed()
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
        payload: { invoiceId: input.invoiceId, mode, asked: asked.toFixed(), amount, learned },
      },
    ])
  })
}

/**
 * Gives a transaction back to the engine: the person's matches of it are removed (unmatches included), so
 * automatic matching decides it again. Rejected suggestions and dispositions stay: they are undone on their own.
 */
export async function giveBack(deps: PersonInputDeps, transactionId: string): Promise<{ removed: number }> {
  return inLock(deps, async (trx) => {
    await inflow(trx, transactionId)
    const matches = await loadManualMatches(trx, [transactionId])
    if (matches.length === 0) {
      throw new ClosingRequestError(
        'conflict',
        'not_taken_over',
        `Transaction ${transactionId} has no person's matches: the engine matches it already.`,
      )
    }
    for (const match of matches) await removeManualMatch(trx, transactionId, match.invoiceId, deps.now)
    await enqueueMatches(trx, 'transaction', [transactionId])
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: 'transaction.given_back',
        entity: 'transaction',
        entityId: transactionId,
        payload: { removed: matches.map(({ invoiceId, amount }) => ({ invoiceId, amount })) },
      },
    ])
    return { removed: matches.length }
  })
}

/** Unmatches one allocation: the person's input that the transaction does not pay that invoice. */
export async function removeAllocation(
  deps: PersonInputDeps,
  allocationId: string,
): Promise<{ transactionId: string }> {
  return inLock(deps, async (trx) => {
    const allocation = await findAllocation(trx, allocationId)
    if (!allocation) throw new ClosingRequestError('not_found', 'not_found', `No allocation ${allocationId}.`)
    if (allocation.reversed_at) {
      throw new ClosingRequestError(
        'conflict',
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
  if (!exception) throw new ClosingRequestError('not_found', 'not_found', `No exception ${key}.`)
  // A return is applied by the engine; rejecting it undoes it (the payment's allocations come back).
  const allowed = action === 'reject' ? ['suggested_match', 'payment_returned'] : ['suggested_match']
  if (!allowed.includes(exception.type)) {
    throw new ClosingRequestError(
      'conflict',
      'not_a_suggestion',
      `Exception ${key} is a ${exception.type}, not a suggestion${action === 'reject' ? ' or a return' : ''}: ` +
        'resolve it with POST /api/exceptions/{key}/dispose (write_off, clearing, refund, on_account or ignore).',
    )
  }
  if (exception.resolved_at) {
    throw new ClosingRequestError(
      'conflict',
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
