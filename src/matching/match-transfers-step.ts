import type { Kysely } from 'kysely'
import { publishAppEvents, stableEventId, type AppEventInput } from '../app-events/index.js'
import {
  loadExceptionsInScope,
  loadMatchTransactions,
  openException,
  registerTransferLegs,
  resolveException,
  saveTransferLegs,
  transactionsWithKeys,
  transfersInScope,
  type AuditAppend,
  type Database,
  type MatchTransactionRow,
  type TransferLegsRow,
  type TransferWithLegs,
} from '../store/index.js'
import {
  matchTransferLegs,
  type MatchConfig,
  type MatchTransaction,
  type MatchTransfer,
} from '../matcher/index.js'
import { exceptionWrite } from './apply-match-result.js'
import { candidateKeys, numberKey } from './candidate-keys.js'
import { matchTransactionOf } from './store-shapes.js'

export type TransferStepResult = {
  /** Transactions that became or stopped being a leg: the invoice side must look at them again. */
  changedLegs: string[]
  matched: number
  events: number
}

function matchTransferOf(row: TransferWithLegs): MatchTransfer {
  return {
    id: row.id,
    clientReference: row.client_reference,
    amount: row.executed_amount?.value ?? row.amount,
    currency: row.executed_amount?.currency ?? row.currency,
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  }
}

/**
 * The transfers in scope with their legs rows; a new transfer's row is registered here with its reference key,
 * and the new transfer is in scope as a registered one would be: not ended, or its reference among the keys.
 */
async function registeredInScope(
  db: Kysely<Database>,
  scope: { keys: readonly string[]; transactionIds: readonly string[]; now: Date },
): Promise<TransferWithLegs[]> {
  const rows = await transfersInScope(db, scope)
  const fresh = new Map(
    rows.flatMap((row) => (row.legs === null ? [[row.id, numberKey(row.client_reference)] as const] : [])),
  )
  await registerTransferLegs(
    db,
    [...fresh].map(([transferId, referenceKey]) => ({ transferId, referenceKey })),
    scope.now,
  )
  return rows.flatMap(({ legs, ended, ...transfer }) => {
    if (legs !== null) return [{ ...transfer, legs }]
    const referenceKey = fresh.get(transfer.id)!
    if (ended && !scope.keys.includes(referenceKey)) return []
    const empty: TransferLegsRow = {
      transfer_id: transfer.id,
      reference_key: referenceKey,
      outflow_transaction_id: null,
      inflow_transaction_id: null,
      legs_matched_at: null,
      updated_at: scope.now,
    }
    return [{ ...transfer, legs: empty }]
  })
}

/**
 * Rule 8 for the transfers a batch can concern: those whose client reference the batch's transactions carry,
 * those holding one of them as a leg, and every transfer still missing a leg (so the window is checked on each
 * run). Stores the legs found, sends transfer.legs_matched once both are there, and opens or resolves
 * transfer_leg_missing.
 */
export async function matchTransfersStep(
  db: Kysely<Database>,
  input: {
    transactionIds: readonly string[]
    /** The rows of `transactionIds` still mirrored, read in this transaction. */
    transactionRows: readonly MatchTransactionRow[]
    now: Date
    config: MatchConfig
    audit: AuditAppend[]
  },
): Promise<TransferStepResult> {
  const { now, audit } = input
  const seeds = input.transactionRows.flatMap((row) => {
    const transaction = matchTransactionOf(row)
    return transaction ? [transaction] : []
  })
  const keys = [...new Set(seeds.flatMap((transaction) => candidateKeys(transaction)))]
  const transfers = await registeredInScope(db, { keys, transactionIds: input.transactionIds, now })
  const result: TransferStepResult = { changedLegs: [], matched: 0, events: 0 }
  const events: AppEventInput[] = []
  if (transfers.length === 0) return result

  const referenceKeys = [...new Set(transfers.map((row) => row.legs.reference_key))]
  const ids = new Set([...(await transactionsWithKeys(db, referenceKeys)), ...seeds.map((t) => t.id)])
  const transactions: MatchTransaction[] = (await loadMatchTransactions(db, [...ids])).flatMap((row) => {
    const transaction = matchTransactionOf(row)
    return transaction ? [transaction] : []
  })
  const found = matchTransferLegs({
    transfers: transfers.map(matchTransferOf),
    transactions,
    now,
    config: input.config,
  })
  const byId = new Map(transfers.map((row) => [row.id, row]))
  for (const legs of found.legs) {
    const row = byId.get(legs.transferId)!
    const before = row.legs
    const complete = legs.outflowTransactionId !== null && legs.inflowTransactionId !== null
    if (
      before.outflow_transaction_id === legs.outflowTransactionId &&
      before.inflow_transaction_id === legs.inflowTransactionId
    )
      continue
    for (const [was, is] of [
      [before.outflow_transaction_id, legs.outflowTransactionId],
      [before.inflow_transaction_id, legs.inflowTransactionId],
    ]) {
      if (was !== is) result.changedLegs.push(...[was, is].filter((id): id is string => id !== null))
    }
    await saveTransferLegs(
      db,
      legs.transferId,
      {
        outflow: legs.outflowTransactionId,
        inflow: legs.inflowTransactionId,
        matchedAt: complete ? now : null,
      },
      now,
    )
    audit.push({
      actor: 'engine',
      action: 'transfer.legs_changed',
      entity: 'transfer',
      entityId: legs.transferId,
      payload: {
        outflowTransactionId: legs.outflowTransactionId,
        inflowTransactionId: legs.inflowTransactionId,
      },
    })
    if (!complete) continue
    result.matched++
    events.push({
      id: stableEventId(
        'transfer.legs_matched',
        legs.transferId,
        legs.outflowTransactionId!,
        legs.inflowTransactionId!,
      ),
      type: 'transfer.legs_matched',
      createdAt: now,
      data: {
        transferId: legs.transferId,
        bankTransferId: row.bank_transfer_id,
        clientReference: row.client_reference,
        amount: { value: matchTransferOf(row).amount.toString(), currency: matchTransferOf(row).currency },
        outflowTransactionId: legs.outflowTransactionId,
        inflowTransactionId: legs.inflowTransactionId,
      },
    })
  }
  result.events += (await publishAppEvents(db, events)).length

  const existing = await loadExceptionsInScope(db, {
    transactionIds: [],
    keys: found.exceptions.map((exception) => exception.key),
    transferIds: transfers.map((row) => row.id),
  })
  const byKey = new Map(existing.map((row) => [row.key, row]))
  const open = new Set<string>()
  for (const exception of found.exceptions) {
    open.add(exception.key)
    const { opened } = await openException(db, exceptionWrite(exception), byKey.get(exception.key), now)
    if (opened) {
      audit.push({
        actor: 'engine',
        action: 'exception.opened',
        entity: 'exception',
        entityId: exception.key,
        payload: { type: exception.type, transferId: exception.transferId, reasons: exception.reasons },
      })
    }
  }
  for (const row of existing) {
    if (row.resolved_at !== null || open.has(row.key) || row.type !== 'transfer_leg_missing') continue
    const legs = found.legs.find((item) => item.transferId === row.transfer_id)
    const resolution =
      legs?.outflowTransactionId && legs.inflowTransactionId ? 'legs_matched' : 'no_longer_missing'
    await resolveException(db, row.key, resolution, now)
    audit.push({
      actor: 'engine',
      action: 'exception.resolved',
      entity: 'exception',
      entityId: row.key,
      payload: { type: row.type, transferId: row.transfer_id, resolution },
    })
  }
  return result
}
