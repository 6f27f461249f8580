import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import { publishAppEvents, stableEventId, type AppEventInput } from '../app-events/index.js'
import {
  deleteTransactionReferences,
  insertAllocations,
  loadExceptionsInScope,
  loadInvoiceStates,
  openException,
  resolveException,
  reverseAllocations,
  saveInvoiceStates,
  saveTransactionReferences,
  type AllocationRow,
  type AuditAppend,
  type Database,
  type ExceptionWrite,
  type HeldAllocationRow,
  type MatchExceptionRow,
} from '../store/index.js'
import {
  invoiceEventType,
  referencedInvoiceIds,
  suggestionKey,
  transactionPhase,
  type Allocation,
  type MatchException,
} from '../matcher/index.js'
import type { MatchPaymentsResult } from '../matcher/index.js'
import { diffAllocations, type ProducedAllocation, type StoredAllocation } from './allocation-diff.js'
import type { ClosedSet } from './load-closed-set.js'

export type ApplyContext = {
  set: ClosedSet
  result: MatchPaymentsResult
  now: Date
  audit: AuditAppend[]
}

export type ApplySummary = {
  inserted: number
  reversed: number
  opened: number
  resolved: number
  events: number
}

export function storedAllocationOf(row: HeldAllocationRow): StoredAllocation {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    invoiceId: row.invoice_id,
    amount: row.amount,
    writeOff: row.write_off,
    writeOffReason: row.write_off_reason,
    writeOffAccount: row.write_off_account,
    settled: row.settled,
    rule: row.rule,
    field: row.field,
    reference: row.matched_reference,
    via: row.via,
    confidence: row.confidence,
    madeBy: row.made_by,
    actor: row.actor,
    evidence: row.evidence,
  }
}

/** The manual match behind a person's allocation: who made it. */
function manualMatchOf(set: ClosedSet, allocation: { transactionId: string; invoiceId: string }) {
  return set.manualAllocations.find(
    (match) => match.transactionId === allocation.transactionId && match.invoiceId === allocation.invoiceId,
  )
}

/** The proposed allocations, each of a person's with the user whose manual match it is. */
function withActors(set: ClosedSet, allocations: readonly Allocation[]): ProducedAllocation[] {
  return allocations.map((allocation) => ({
    ...allocation,
    actor: allocation.madeBy === 'person' ? (manualMatchOf(set, allocation)?.actor ?? null) : null,
  }))
}

/** The audit actor of an allocation a run made: the person whose match it is, else who made it (engine). */
function allocationActor(set: ClosedSet, row: AllocationRow): Pick<AuditAppend, 'actor' | 'actorRole'> {
  if (row.made_by !== 'person' || !row.actor) return { actor: row.made_by }
  const match = manualMatchOf(set, { transactionId: row.transaction_id, invoiceId: row.invoice_id })
  return { actor: row.actor, actorRole: match?.actorRole ?? null }
}

function presentAllocation(allocation: Allocation | StoredAllocation): Record<string, unknown> {
  return {
    transactionId: allocation.transactionId,
    invoiceId: allocation.invoiceId,
    amount: allocation.amount,
    writeOff: allocation.writeOff,
    writeOffReason: allocation.writeOffReason,
    settled: allocation.settled,
    rule: allocation.rule,
    reference: allocation.reference,
    confidence: allocation.confidence,
    madeBy: allocation.madeBy,
  }
}

/** Why a held allocation went away, in the words the store records. */
function reversalReason(set: ClosedSet, result: MatchPaymentsResult, allocation: StoredAllocation): string {
  const entry = set.transactions.get(allocation.transactionId)
  if (!entry) return 'transaction_removed'
  if (transactionPhase(entry.transaction) === 'inactive') return `transaction_${entry.transaction.status}`
  if (entry.transferLeg) return 'transfer_leg'
  if (result.returns.some((item) => item.inflowTransactionId === allocation.transactionId))
    return 'payment_returned'
  if (allocation.madeBy === 'person') return 'unmatched_by_person'
  return 'no_longer_matched'
}

/**
 * What a person's rejection of an exception is recorded under: a suggestion's invoices, or for a return the
 * returned inflow (the last part of its key).
 */
export function rejectionIdsOf(exception: Pick<MatchExceptionRow, 'type' | 'key' | 'invoice_ids'>): string[] {
  return exception.type === 'payment_returned' ? [exception.key.split(':')[2] ?? ''] : exception.invoice_ids
}

/** How an exception whose key is gone was resolved. */
function resolutionOf(
  set: ClosedSet,
  allocations: readonly Allocation[],
  exception: MatchExceptionRow,
): string {
  const transactionId = exception.transaction_id
  const entry = transactionId ? set.transactions.get(transactionId) : undefined
  if (!entry) return 'transaction_removed'
  if (transactionPhase(entry.transaction) === 'inactive') return `transaction_${entry.transaction.status}`
  if (entry.transferLeg) return 'transfer_leg'
  if (exception.type === 'suggested_match' || exception.type === 'payment_returned') {
    const key = suggestionKey(entry.transaction.id, rejectionIdsOf(exception))
    const rejected = set.rejectedSuggestions.some(
      (item) => suggestionKey(item.transactionId, item.invoiceIds) === key,
    )
    if (rejected) return 'rejected'
  }
  const own = allocations.filter((allocation) => allocation.transactionId === transactionId)
  if (own.some((allocation) => allocation.madeBy === 'person')) return 'manual_match'
  if (own.length > 0) return 'matched'
  return 'superseded'
}

/**
 * Writes what the matcher proposed for a closed set, in the caller's transaction: reverses held allocations that
 * are not proposed any more and inserts the new ones, stores the invoices' states, opens and resolves exceptions,
 * records the references read, and publishes the app events these changes make.
 */
export async function applyMatchResult(db: Kysely<Database>, context: ApplyContext): Promise<ApplySummary> {
  const { set, result, now, audit } = context
  const summary: ApplySummary = { inserted: 0, reversed: 0, opened: 0, resolved: 0, events: 0 }
  const transactionIds = [...set.transactionIds]

  const held = set.allocations.map(storedAllocationOf)
  const diff = diffAllocations(held, withActors(set, result.allocations), (allocation) =>
    reversalReason(set, result, allocation),
  )
  await reverseAllocations(
    db,
    diff.reverse.map(({ allocation, reason }) => ({ id: allocation.id, reason })),
    now,
  )
  for (const { allocation, reason } of diff.reverse) {
    audit.push({
      actor: 'engine',
      action: 'allocation.reversed',
      entity: 'allocation',
      entityId: allocation.id,
      payload: { ...presentAllocation(allocation), reason },
    })
  }
  const inserted = await insertAllocations(db, diff.insert, now)
  for (const row of inserted) {
    audit.push({
      ...allocationActor(set, row),
      action: 'allocation.created',
      entity: 'allocation',
      entityId: row.id,
      payload: { ...presentAllocation(storedAllocationOf(row)), field: row.field, via: row.via },
    })
  }
  summary.inserted = inserted.length
  summary.reversed = diff.reverse.length

  await saveTransactionReferences(
    db,
    [...set.transactions.values()].map((entry) => ({
      transactionId: entry.transaction.id,
      outcome: entry.outcome,
      invoiceIds: referencedInvoiceIds(entry.references),
      candidateKeys: entry.candidateKeys,
      payerKey: entry.payerKey,
      payerKeys: entry.payerKeys,
    })),
    now,
  )
  await deleteTransactionReferences(
    db,
    transactionIds.filter((id) => !set.transactions.has(id)),
  )

  summary.events += await writeInvoiceStates(db, context)
  const exceptions = await writeExceptions(db, context, result.exceptions)
  summary.opened = exceptions.opened
  summary.resolved = exceptions.resolved
  summary.events += exceptions.events
  return summary
}

async function writeInvoiceStates(db: Kysely<Database>, context: ApplyContext): Promise<number> {
  const { result, set, now, audit } = context
  const before = new Map(
    (
      await loadInvoiceStates(
        db,
        result.invoices.map((state) => state.invoiceId),
      )
    ).map((row) => [row.invoice_id, row]),
  )
  const writes = []
  const events: AppEventInput[] = []
  for (const state of result.invoices) {
    const old = before.get(state.invoiceId)
    const version = set.invoiceVersions.get(state.invoiceId) ?? '0'
    const sameState =
      old !== undefined &&
      old.status === state.status &&
      new Decimal(old.amount_paid).equals(state.amountPaid) &&
      new Decimal(old.amount_pending).equals(state.amountPending) &&
      new Decimal(old.amount_open).equals(state.amountOpen) &&
      new Decimal(old.amount_overpaid).equals(state.amountOverpaid) &&
      new Decimal(old.amount_written_off).equals(state.amountWrittenOff)
    if (sameState && old.invoice_version === version) continue
    const type = sameState
      ? null
      : invoiceEventType(old ? { status: old.status, amountPaid: old.amount_paid } : null, state)
    const changes = (old?.status_changes ?? 0) + (type ? 1 : 0)
    writes.push({
      invoice_id: state.invoiceId,
      status: state.status,
      amount_paid: state.amountPaid,
      amount_pending: state.amountPending,
      amount_open: state.amountOpen,
      amount_overpaid: state.amountOverpaid,
      amount_written_off: state.amountWrittenOff,
      status_changes: changes,
      invoice_version: version,
      updated_at: now,
    })
    if (sameState) continue
    audit.push({
      actor: 'engine',
      action: 'invoice.state_changed',
      entity: 'invoice',
      entityId: state.invoiceId,
      payload: { previousStatus: old?.status ?? null, ...state },
    })
    if (!type) continue
    const invoice = set.invoices.get(state.invoiceId)
    const allocations = result.allocations
      .filter((allocation) => allocation.invoiceId === state.invoiceId)
      .map((allocation) => ({
        transactionId: allocation.transactionId,
        amount: allocation.amount,
        writeOff: allocation.writeOff,
        settled: allocation.settled,
        rule: allocation.rule,
        madeBy: allocation.madeBy,
      }))
    const digest = allocations
      .map((allocation) => `${allocation.transactionId}:${allocation.amount}:${allocation.settled}`)
      .sort()
      .join(',')
    events.push({
      id: stableEventId(type, state.invoiceId, state.status, String(changes), digest),
      type,
      createdAt: now,
      data: {
        number: invoice?.number ?? null,
        currency: invoice?.currency ?? null,
        amount: invoice ? new Decimal(invoice.amount.toString()).toFixed() : null,
        previousStatus: old?.status ?? 'open',
        ...state,
        allocations,
      },
    })
  }
  await saveInvoiceStates(db, writes)
  return (await publishAppEvents(db, events)).length
}

async function writeExceptions(
  db: Kysely<Database>,
  context: ApplyContext,
  produced: readonly MatchException[],
): Promise<{ opened: number; resolved: number; events: number }> {
  const { set, result, now, audit } = context
  const counts = { opened: 0, resolved: 0, events: 0 }
  const events: AppEventInput[] = []
  const existing = await loadExceptionsInScope(db, {
    transactionIds: [...set.transactionIds],
    keys: produced.map((exception) => exception.key),
  })
  const byKey = new Map(existing.map((row) => [row.key, row]))
  const producedKeys = new Set<string>()
  for (const exception of produced) {
    if (producedKeys.has(exception.key)) continue
    producedKeys.add(exception.key)
    const { opened, row } = await openException(db, exceptionWrite(exception), byKey.get(exception.key), now)
    if (!opened) continue
    counts.opened++
    audit.push({
      actor: 'engine',
      action: 'exception.opened',
      entity: 'exception',
      entityId: exception.key,
      payload: {
        type: exception.type,
        transactionId: exception.transactionId,
        invoiceIds: exception.invoiceIds,
        amount: exception.amount,
        reasons: exception.reasons,
      },
    })
    if (exception.type !== 'unmatched_payment') continue
    events.push({
      id: stableEventId('payment.unmatched', exception.key, String(row.times_opened)),
      type: 'payment.unmatched',
      createdAt: now,
      data: {
        transactionId: exception.transactionId,
        amount: exception.amount,
        currency: set.transactions.get(exception.transactionId ?? '')?.transaction.currency ?? null,
        settled: exception.settled,
        invoiceIds: exception.invoiceIds,
        reasons: exception.reasons,
      },
    })
  }
  counts.events = (await publishAppEvents(db, events)).length
  for (const row of existing) {
    if (row.resolved_at !== null || producedKeys.has(row.key) || row.type === 'transfer_leg_missing') continue
    const resolution = resolutionOf(set, result.allocations, row)
    await resolveException(db, row.key, resolution, now)
    counts.resolved++
    audit.push({
      actor: 'engine',
      action: 'exception.resolved',
      entity: 'exception',
      entityId: row.key,
      payload: { type: row.type, transactionId: row.transaction_id, resolution },
    })
  }
  return counts
}

export function exceptionWrite(exception: MatchException): ExceptionWrite {
  return {
    key: exception.key,
    type: exception.type,
    transactionId: exception.transactionId,
    transferId: exception.transferId,
    invoiceIds: exception.invoiceIds,
    amount: exception.amount,
    confidence: exception.confidence,
    settled: exception.settled,
    reasons: exception.reasons,
    evidence: exception.evidence,
  }
}
