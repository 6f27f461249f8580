import type { AlertSeverity } from './config.js'
import { between, formatTime, type AlertNotice, type TransferRef } from './notice.js'
import type {
  TransferAlertEffect,
  TransferAlertKind,
  TransferRecoveryEffect,
  TransferReminderEffect,
} from './transfer-outcome.js'

export const TRANSFER_SEVERITY: Record<TransferAlertKind, AlertSeverity> = {
  pending_bank_approval: 'warning',
  failed: 'critical',
  returned: 'critical',
  cancelled: 'warning',
  unknown: 'warning',
}

function describe(transfer: TransferRef): string {
  const amount = transfer.amount ? `${transfer.amount.value} ${transfer.amount.currency}` : 'amount unknown'
  const reference = transfer.clientReference ? `, reference ${transfer.clientReference}` : ''
  return `Transfer ${transfer.id} (${amount}${reference})`
}

function label(transfer: TransferRef): string {
  return transfer.clientReference ?? transfer.id
}

function wording(
  effect: TransferAlertEffect | TransferReminderEffect,
  transfer: TransferRef,
): { title: string; text: string; action: string | null } {
  const what = describe(transfer)
  const reason = effect.type === 'alert' && effect.failureReason ? ` Reason: ${effect.failureReason}.` : ''
  const since = formatTime(effect.type === 'alert' ? effect.observedAt : effect.startedAt)
  switch (effect.kind) {
    case 'pending_bank_approval':
      return {
        title: `Transfer ${label(transfer)} awaits approval in the bank portal`,
        text: `${what} is waiting for approval at the bank since ${since}; it will not execute until approved.`,
        action:
          `Approve in the bank portal${transfer.portalUrl ? ` (${transfer.portalUrl})` : ''}: a user with ` +
          `approval rights signs in and approves the payment. bankrec keeps polling and reports the outcome.`,
      }
    case 'failed':
      return {
        title: `Transfer ${label(transfer)} failed`,
        text: `${what} failed at ${since}.${reason}`,
        action:
          `Fix the cause given in the reason (funds, account details, limits), then retry it ` +
          `(bankrec transfer retry ${transfer.id}) or create a new transfer.`,
      }
    case 'returned':
      return {
        title: `Transfer ${label(transfer)} was returned`,
        text: `${what} was returned at ${since}; the money came back to the source account.${reason}`,
        action: 'Check the reason with the receiving side before sending the payment again.',
      }
    case 'cancelled':
      return {
        title: `Transfer ${label(transfer)} was cancelled`,
        text: `${what} was cancelled at ${since}.${reason}`,
        action: 'Confirm the cancellation was intended; if it was not, create the transfer again.',
      }
    case 'unknown':
      return {
        title: `Transfer ${label(transfer)} is in an unknown state`,
        text: `${what} is reported in a bank state that maps to no known status since ${since}.`,
        action:
          'Check the transfer in the bank portal before sending anything again; bankrec keeps polling until ' +
          'it reaches a known status.',
      }
  }
}

// A caller may pass a whole stored row; only these fields ever reach a sink.
function pickTransfer(transfer: TransferRef): TransferRef {
  return {
    id: transfer.id,
    clientReference: transfer.clientReference ?? null,
    amount: transfer.amount ? { value: transfer.amount.value, currency: transfer.amount.currency } : null,
    sourceAccountId: transfer.sourceAccountId ?? null,
    destinationAccountId: transfer.destinationAccountId ?? null,
    portalUrl: transfer.portalUrl ?? null,
  }
}

/** What a transfer alert, reminder or recovery says to operations. */
export function transferNotice(
  effect: TransferAlertEffect | TransferReminderEffect | TransferRecoveryEffect,
  transfer: TransferRef,
): AlertNotice {
  const severity = TRANSFER_SEVERITY[effect.kind]
  const fields = [
    { label: 'Transfer', value: transfer.id },
    ...(transfer.clientReference ? [{ label: 'Reference', value: transfer.clientReference }] : []),
    ...(transfer.amount
      ? [{ label: 'Amount', value: `${transfer.amount.value} ${transfer.amount.currency}` }]
      : []),
    { label: 'Incident', value: effect.incidentId },
  ]
  const base = {
    id: effect.id,
    kind: effect.kind,
    incidentId: effect.incidentId,
    subject: { transfer: pickTransfer(transfer) },
    routeSeverity: severity,
    occurredAt: effect.occurredAt,
  }
  if (effect.type === 'recovery') {
    const approved = effect.kind === 'pending_bank_approval'
    return {
      ...base,
      type: 'recovery',
      severity: 'info',
      title: approved
        ? `Transfer ${label(transfer)} no longer awaits approval`
        : `Transfer ${label(transfer)} is in a known state again`,
      text:
        `${describe(transfer)} is now ${effect.status} (as of ${formatTime(effect.observedAt)}), after ` +
        `${between(effect.startedAt, effect.observedAt)} ${approved ? 'awaiting approval' : 'in an unknown state'}.`,
      action: null,
      fields: [...fields, { label: 'Status', value: effect.status }],
    }
  }
  const words = wording(effect, transfer)
  if (effect.type === 'reminder') {
    return {
      ...base,
      type: 'reminder',
      severity,
      title: `Reminder ${effect.sequence}: ${words.title}`,
      text: `Still open after ${between(effect.startedAt, effect.occurredAt)}. ${words.text}`,
      action: words.action,
      fields: [...fields, { label: 'Status', value: effect.kind }],
    }
  }
  return {
    ...base,
    type: 'alert',
    severity,
    ...words,
    fields: [
      ...fields,
      { label: 'Status', value: effect.status },
      ...(effect.failureReason ? [{ label: 'Reason', value: effect.failureReason }] : []),
    ],
  }
}
