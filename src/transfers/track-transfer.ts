import {
  newTransferTracking,
  observeTransfer,
  tickTransfer,
  transferNotice,
  transferPollDelaySeconds,
  type AlertNotice,
  type TransferEffect,
  type TransferRef,
  type TransferTracking,
} from '../alerts/index.js'
import type { Transfer } from '../api-client/index.js'
import { publishAppEvent } from '../app-events/index.js'
import {
  claimDueTransfers,
  lockTransfer,
  portalUrlOfAccount,
  postponeTransferPoll,
  saveTransferObservation,
  type TransferRow,
} from '../store/index.js'
import type { TrackerContext } from './transfer-context.js'
import { transferEventData } from './transfer-event-data.js'

/** A claimed transfer is left alone by other scanners this long; a worker that dies mid-poll frees it then. */
const CLAIM_LEASE_MS = 60_000
const SCAN_BATCH = 50

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000)

/** When the tracker looks next: the back-off delay, or sooner when a reminder falls due. */
function nextPollAt(ctx: TrackerContext, tracking: TransferTracking, pollAttempt: number, now: Date): Date {
  const poll = later(now, transferPollDelaySeconds(pollAttempt, ctx.pollSchedule))
  const { incident } = tracking
  if (incident?.kind !== 'pending_bank_approval') return poll
  const reminder = later(new Date(incident.lastAlertAt), ctx.reminderSeconds)
  return reminder < poll ? reminder : poll
}

async function noticesFor(
  ctx: TrackerContext,
  row: TransferRow,
  effects: TransferEffect[],
): Promise<AlertNotice[]> {
  const alerting = effects.filter((e) => e.type !== 'app_event')
  if (alerting.length === 0) return []
  const ref: TransferRef = {
    id: row.bank_transfer_id ?? row.id,
    clientReference: row.client_reference,
    amount: { value: (row.request.amount as { value: string }).value, currency: row.currency },
    sourceAccountId: row.source_account_id,
    destinationAccountId: row.destination_account_id,
    portalUrl: await portalUrlOfAccount(ctx.db, row.source_account_id),
  }
  return alerting.map((effect) => transferNotice(effect, ref))
}

/**
 * Applies one look at the bank's transfer: the pure rules (observeTransfer, tickTransfer) decide the alerts and
 * app events; the new status, the tracking state and the app events commit in one transaction. Alerts are
 * published before that commit: if the commit fails, the next poll repeats the same observation and the same
 * notice ids, which the alert pipeline stores once. Returns the effects.
 */
export async function applyTransferObservation(
  ctx: TrackerContext,
  transferId: string,
  observed: Transfer,
): Promise<TransferEffect[]> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await lockTransfer(trx, transferId)
    if (!row || row.bank_transfer_id !== observed.id) return []
    // A retry's answer recorded while this poll was in flight is newer than what the poll saw.
    if (row.bank_updated_at && Date.parse(observed.updatedAt) < row.bank_updated_at.getTime()) return []
    const now = ctx.clock.now()
    const before = row.tracking ?? newTransferTracking(observed.id)
    const step = observeTransfer(
      before,
      {
        status: observed.status,
        failureReason: observed.failureReason ?? null,
        observedAt: observed.updatedAt,
      },
      now,
    )
    const tick = tickTransfer(step.tracking, now, { reminderSeconds: ctx.reminderSeconds })
    const effects = [...step.effects, ...tick.effects]
    const pollAttempt = step.tracking.status === before.status ? row.poll_attempt : 0
    const saved = await saveTransferObservation(trx, row.id, {
      transfer: observed,
      tracking: tick.tracking,
      pollAttempt: pollAttempt + 1,
      nextPollAt: step.terminal ? null : nextPollAt(ctx, tick.tracking, pollAttempt, now),
      now,
    })
    for (const effect of effects) {
      if (effect.type !== 'app_event') continue
      await publishAppEvent(trx, {
        id: effect.id,
        type: effect.event,
        data: transferEventData(saved, effect),
        createdAt: now,
      })
    }
    const notices = await noticesFor(ctx, saved, effects)
    if (notices.length > 0) await ctx.alerts.publish(notices)
    if (step.tracking.status !== before.status) {
      ctx.logger.info(
        { transferId: row.id, bankTransferId: observed.id, status: observed.status, previous: before.status },
        'transfer status changed',
      )
    }
    return effects
  })
}

/** Polls one claimed transfer; a failed poll is tried again after the back-off delay. */
export async function pollTransfer(ctx: TrackerContext, row: TransferRow): Promise<void> {
  let observed: Transfer
  try {
    observed = await ctx.client.transfers.get(row.bank_transfer_id!)
  } catch (error) {
    const now = ctx.clock.now()
    await postponeTransferPoll(ctx.db, row.id, {
      pollAttempt: row.poll_attempt + 1,
      nextPollAt: later(now, transferPollDelaySeconds(row.poll_attempt, ctx.pollSchedule)),
    })
    ctx.logger.warn({ transferId: row.id, err: error }, 'could not poll a transfer; will try again')
    return
  }
  await applyTransferObservation(ctx, row.id, observed)
}

/**
 * Polls every transfer whose next poll is due on bankrec's clock, in batches; several workers may scan at once.
 * Returns how many transfers it polled.
 */
export async function pollDueTransfers(ctx: TrackerContext): Promise<number> {
  let polled = 0
  for (;;) {
    const now = ctx.clock.now()
    const due = await claimDueTransfers(ctx.db, {
      now,
      leaseUntil: new Date(now.getTime() + CLAIM_LEASE_MS),
      limit: SCAN_BATCH,
    })
    for (const row of due) {
      await pollTransfer(ctx, row).catch((error: unknown) =>
        ctx.logger.error(
          { transferId: row.id, err: error },
          'transfer poll failed; it is due again after its lease',
        ),
      )
    }
    polled += due.length
    if (due.length < SCAN_BATCH) return polled
  }
}
