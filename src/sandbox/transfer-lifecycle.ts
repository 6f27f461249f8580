import { Decimal } from 'decimal.js'
import { TERMINAL_TRANSFER_STATUSES, type MoneyAmount, type TransferStatus } from '../api-client/index.js'
import { ApiError } from './api-error.js'
import { presentAccountOf } from './bank/index.js'
import type { SandboxContext } from './context.js'
import { addTransaction } from './ledger.js'
import type { AccountRecord, TransferRecord } from './state.js'

/**
 * The bank side of a transfer. Automatic steps run on the virtual clock, one every transferStepSeconds:
 * queued → executing → completed, or queued → pending_bank_approval when the amount is above the approval
 * threshold (it waits there until the control API forces an outcome). The source's available balance is checked
 * at creation (preflight, unless skipPreflight) and again by the bank at execution.
 */

export type NewTransfer = {
  orgId: string
  amount: MoneyAmount
  source: AccountRecord
  destination: AccountRecord
  destinationType: string
  clientReference: string
  memo: string | null
  executionDate: string | null
  skipPreflight: boolean
}

const today = (now: Date) => now.toISOString().slice(0, 10)

/** Whether the source's available balance, as the accounts endpoint shows it now, is below the amount. */
function insufficientFunds(ctx: SandboxContext, transfer: TransferRecord): boolean {
  const source = ctx.state.accounts.get(transfer.sourceAccountId)
  const available = source ? presentAccountOf(ctx, source).availableBalance : null
  // A bank that does not expose balances cannot be checked; the transfer goes ahead.
  return available !== null && new Decimal(available).lt(transfer.requestedAmount.value)
}

function setStatus(
  transfer: TransferRecord,
  status: TransferStatus,
  at: Date,
  failureMessage?: string,
): void {
  transfer.status = status
  transfer.updatedAt = at.toISOString()
  if (failureMessage === undefined) delete transfer.failureReason
  else transfer.failureReason = { message: failureMessage }
}

function scheduleStep(ctx: SandboxContext, transfer: TransferRecord, due: Date): void {
  transfer.nextStepAt = due
  const { id } = transfer
  ctx.scheduler.at(due, `transfer ${id}`, () => {
    const current = ctx.state.transfers.get(id)
    // A forced outcome or a retry reschedules; a step planned before it is stale.
    if (current?.nextStepAt?.getTime() !== due.getTime()) return
    step(ctx, current, due)
  })
}

function nextDue(ctx: SandboxContext, from: Date): Date {
  return new Date(from.getTime() + ctx.settings.transferStepSeconds * 1000)
}

function step(ctx: SandboxContext, transfer: TransferRecord, at: Date): void {
  transfer.nextStepAt = null
  if (transfer.status === 'queued') {
    if (
      !transfer.approved &&
      new Decimal(transfer.requestedAmount.value).gt(ctx.settings.transferApprovalThreshold)
    ) {
      setStatus(transfer, 'pending_bank_approval', at)
      return
    }
    setStatus(transfer, 'executing', at)
    scheduleStep(ctx, transfer, nextDue(ctx, at))
  } else if (transfer.status === 'executing') {
    const { accounts } = ctx.state
    if (!accounts.has(transfer.sourceAccountId) || !accounts.has(transfer.destination.accountId)) {
      setStatus(transfer, 'failed', at, 'The source or destination account is no longer connected.')
      return
    }
    if (insufficientFunds(ctx, transfer)) {
      setStatus(transfer, 'failed', at, 'The bank rejected the transfer: insufficient available balance.')
      return
    }
    complete(ctx, transfer, at)
  }
}

/** Posts the two ledger lines of a completed internal transfer and records the executed amount. */
function complete(ctx: SandboxContext, transfer: TransferRecord, at: Date): void {
  const source = ctx.state.accounts.get(transfer.sourceAccountId)
  const destination = ctx.state.accounts.get(transfer.destination.accountId)
  setStatus(transfer, 'completed', at)
  transfer.nextStepAt = null
  transfer.executedAmount = { ...transfer.requestedAmount }
  // An account deleted with its connection since creation has no ledger left to post to.
  if (!source || !destination) return
  const { value, currency } = transfer.requestedAmount
  const postedDate = today(at)
  const memo = transfer.memo ? `: ${transfer.memo}` : ''
  const line = (account: AccountRecord, other: AccountRecord, outflow: boolean) =>
    addTransaction(ctx, {
      id: ctx.random.uuid(),
      connectionId: account.connectionId,
      accountId: account.id,
      postedDate,
      // The requested value is a positive decimal string: signing it keeps its scale (10.00, not 10).
      amount: outflow ? `-${value}` : value,
      currency,
      description: `Internal transfer ${outflow ? 'to' : 'from'} ${other.name}${memo}`,
      rawDescription: `INTERNAL TRANSFER ${transfer.clientReference}`.toUpperCase(),
      customerReference: transfer.id,
      bankReference: `TRF${ctx.random.hex(8).toUpperCase()}`,
      paymentReference: transfer.clientReference,
      baiCode: outflow ? '495' : '195',
      category: 'transfer',
      subcategory: 'internal',
      mcc: null,
      merchantName: null,
      counterpartyName: other.name,
      counterpartyAccountMasked: other.maskedNumber,
      status: 'posted',
      entryType: outflow ? 'debit' : 'credit',
      rail: 'internalTransfer',
    }).id
  transfer.transactionIds.push(line(source, destination, true), line(destination, source, false))
}

/** Preflight, then the first automatic step (not before the execution date). */
function submit(ctx: SandboxContext, transfer: TransferRecord, now: Date): void {
  if (!transfer.skipPreflight && insufficientFunds(ctx, transfer)) {
    setStatus(
      transfer,
      'failed',
      now,
      `Preflight failed: the source account's available balance is below ${transfer.requestedAmount.value} ${transfer.requestedAmount.currency}.`,
    )
    transfer.nextStepAt = null
    return
  }
  setStatus(transfer, 'queued', now)
  const first = nextDue(ctx, now)
  const executionStart = transfer.executionDate ? new Date(`${transfer.executionDate}T00:00:00Z`) : first
  scheduleStep(ctx, transfer, executionStart > first ? executionStart : first)
}

/**
 * After the sandbox's state was loaded: every transfer with an automatic step planned (nextStepAt) gets it back on
 * the timeline, due when it was due (resumeScheduledWork).
 */
export function resumeTransferSteps(ctx: SandboxContext): void {
  for (const transfer of ctx.state.transfers.values()) {
    if (transfer.nextStepAt) scheduleStep(ctx, transfer, transfer.nextStepAt)
  }
}

export function createTransfer(ctx: SandboxContext, input: NewTransfer): TransferRecord {
  const now = ctx.clock.now()
  const transfer: TransferRecord = {
    id: ctx.random.uuid(),
    status: 'queued',
    type: 'internal',
    requestedAmount: { type: 'money', value: input.amount.value, currency: input.amount.currency },
    sourceAccountId: input.source.id,
    destination: { type: input.destinationType, accountId: input.destination.id },
    transferType: 'internal',
    clientReference: input.clientReference,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    memo: input.memo,
    orgId: input.orgId,
    nextStepAt: null,
    transactionIds: [],
    skipPreflight: input.skipPreflight,
    executionDate: input.executionDate,
    approved: false,
  }
  ctx.state.transfers.set(transfer.id, transfer)
  submit(ctx, transfer, now)
  return transfer
}

/** Transfers that may be retried: those the bank gave up on, not those the integrator stopped. */
export const RETRYABLE_TRANSFER_STATUSES: readonly TransferStatus[] = ['failed', 'returned']

/** @throws ApiError 409 transfer_not_retryable unless the transfer is failed or returned */
export function retryTransfer(ctx: SandboxContext, transfer: TransferRecord): void {
  if (!RETRYABLE_TRANSFER_STATUSES.includes(transfer.status)) {
    throw new ApiError(
      409,
      'transfer_not_retryable',
      `Only a failed or returned transfer can be retried; this one is ${transfer.status}.`,
    )
  }
  delete transfer.executedAmount
  transfer.approved = false
  transfer.executionDate = null
  submit(ctx, transfer, ctx.clock.now())
}

const FAILURE_STATUSES: readonly TransferStatus[] = ['failed', 'returned', 'cancelled']

/**
 * Forces a non-terminal transfer to any status (control API). completed posts the ledger lines; queued and
 * executing resume the automatic steps, with any bank approval counted as given; pending_bank_approval and
 * unknown wait for the next forced outcome.
 * @throws ApiError 409 transfer_terminal when the transfer already is completed, failed, returned or cancelled
 */
export function forceTransferOutcome(
  ctx: SandboxContext,
  transfer: TransferRecord,
  status: TransferStatus,
  failureMessage?: string,
): void {
  if (TERMINAL_TRANSFER_STATUSES.includes(transfer.status)) {
    throw new ApiError(
      409,
      'transfer_terminal',
      `The transfer is already ${transfer.status}; only a non-terminal transfer can be forced.`,
    )
  }
  const now = ctx.clock.now()
  transfer.nextStepAt = null
  if (status === 'completed') {
    complete(ctx, transfer, now)
  } else if (FAILURE_STATUSES.includes(status)) {
    setStatus(transfer, status, now, failureMessage ?? `The bank reported the transfer as ${status}.`)
  } else {
    if (transfer.status === 'pending_bank_approval') transfer.approved = true
    setStatus(transfer, status, now)
    if (status === 'queued' || status === 'executing') scheduleStep(ctx, transfer, nextDue(ctx, now))
  }
}
