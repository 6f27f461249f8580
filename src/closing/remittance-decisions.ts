import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  activeDispositionsOf,
  appendAudit,
  decideRemittanceImport,
  findRemittanceImport,
  loadInvoiceStates,
  type Database,
  type RemittanceImportRow,
} from '../store/index.js'
import { auditActor } from '../users/index.js'
import { assertMayApprove, assertMayWithdraw } from '../controls/index.js'
import type { DispositionDeps } from './dispositions.js'
import { ClosingRequestError } from './closing-errors.js'
import { inLock, unallocatedOf } from './person-inputs.js'
import { applyRemittance } from './remittance.js'

/** A remittance import as the API answers it and the audit log records it. */
export function presentRemittanceImport(row: RemittanceImportRow) {
  return {
    id: row.id,
    transactionId: row.transaction_id,
    status: row.status,
    matches: row.matches,
    writeOff: row.write_off,
    writeOffInvoiceId: row.write_off_invoice_id,
    currency: row.currency,
    feeReason: row.fee_reason,
    fee: row.fee,
    difference: row.difference,
    source: row.source,
    madeBy: row.made_by,
    madeByRole: row.made_by_role,
    createdAt: row.created_at.toISOString(),
    approvedBy: row.status === 'active' ? row.decided_by : null,
    declinedBy: row.status === 'declined' ? row.decided_by : null,
    decidedAt: row.decided_at?.toISOString() ?? null,
  }
}

/** Refuses an approval when the payment or its invoices changed so that the advice no longer fits. */
async function assertStillFits(trx: Kysely<Database>, row: RemittanceImportRow): Promise<void> {
  const changed = (why: string) =>
    new ClosingRequestError(
      'conflict',
      'remittance_changed',
      `Remittance import ${row.id} no longer fits: ${why}. Decline it and import the advice again.`,
    )
  if ((await activeDispositionsOf(trx, [row.transaction_id])).length > 0) {
    throw changed('part of the payment is disposed of')
  }
  const { held } = await unallocatedOf(trx, { id: row.transaction_id, amount: null })
  const states = new Map(
    (
      await loadInvoiceStates(
        trx,
        row.matches.map((m) => m.invoiceId),
      )
    ).map((s) => [s.invoice_id, s]),
  )
  for (const match of row.matches) {
    const state = states.get(match.invoiceId)
    if (!state) continue
    const open = new Decimal(state.amount_open)
      .minus(state.amount_pending)
      .plus(held.get(match.invoiceId) ?? 0)
    if (open.lt(new Decimal(match.amount).plus(match.writeOff ?? 0))) {
      throw changed(`invoice ${match.invoiceId} has only ${open.toFixed()} open`)
    }
  }
}

/**
 * A decision on a remittance import waiting for approval: `approve` (a named approver, not its maker) applies its
 * matches and write-off; `decline` (an approver, or the maker withdrawing it) ends it, nothing applied.
 */
export async function decideRemittance(
  deps: DispositionDeps,
  id: string,
  decision: 'approve' | 'decline',
  note?: string,
): Promise<RemittanceImportRow> {
  return inLock(deps, async (trx) => {
    const row = await findRemittanceImport(trx, id)
    if (!row) throw new ClosingRequestError('not_found', 'not_found', `No remittance import ${id}.`)
    if (row.status !== 'pending_approval') {
      throw new ClosingRequestError(
        'conflict',
        'remittance_state',
        `Remittance import ${row.id} is ${row.status}: only one waiting for approval can be decided.`,
      )
    }
    const document = { madeBy: row.made_by, approvedBy: null }
    if (decision === 'approve') {
      assertMayApprove(deps.controls.policy, document, deps.actor)
      await assertStillFits(trx, row)
    } else assertMayWithdraw(document, deps.actor)
    const to = decision === 'approve' ? 'active' : 'declined'
    await decideRemittanceImport(trx, row.id, to, deps.actor.name, deps.now)
    const after = (await findRemittanceImport(trx, row.id)) as RemittanceImportRow
    const learned = decision === 'approve' ? await applyRemittance(trx, after, deps.now) : []
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: decision === 'approve' ? 'remittance.approved' : 'remittance.declined',
        entity: 'transaction',
        entityId: row.transaction_id,
        payload: { ...presentRemittanceImport(after), learned, ...(note ? { decisionNote: note } : {}) },
      },
    ])
    return after
  })
}
