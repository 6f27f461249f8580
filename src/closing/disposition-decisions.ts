import { Decimal } from 'decimal.js'
import type { Kysely } from 'kysely'
import {
  appendAudit,
  enqueueMatches,
  findDisposition,
  findException,
  setDispositionStatus,
  type Database,
  type DispositionRow,
} from '../store/index.js'
import { auditActor } from '../users/index.js'
import { assertMayApprove, assertMayUndo, assertMayWithdraw } from '../controls/index.js'
import { presentDisposition, putInForce, type DispositionDeps } from './dispositions.js'
import { openRestOf, reapplyInvoiceWriteOffs } from './invoice-rest.js'
import { ClosingRequestError } from './closing-errors.js'
import { inLock } from './person-inputs.js'

async function existing(trx: Kysely<Database>, id: string): Promise<DispositionRow> {
  const row = /^\d{1,18}$/.test(id) ? await findDisposition(trx, id) : undefined
  if (!row) throw new ClosingRequestError('not_found', 'not_found', `No disposition ${id}.`)
  return row
}

function conflict(row: DispositionRow, wanted: string): ClosingRequestError {
  return new ClosingRequestError(
    'conflict',
    'disposition_state',
    `Disposition ${row.id} is ${row.status}: only a ${wanted} one can be changed so.`,
  )
}

/** Who made a disposition and who approved it (null: made alone), for the authority checks. */
const decided = (row: DispositionRow) => ({
  madeBy: row.made_by,
  approvedBy: row.status === 'active' ? row.decided_by : null,
})

/** Refuses an approval when what the disposition takes is no longer there to take. */
async function assertStillThere(trx: Kysely<Database>, row: DispositionRow): Promise<void> {
  if (row.invoice_id !== null) {
    const { rest } = await openRestOf(trx, row.invoice_id, row.id)
    if (rest.lt(row.amount)) {
      throw new ClosingRequestError(
        'conflict',
        'invoice_changed',
        `Invoice ${row.invoice_id} has only ${rest.toFixed()} open now, less than ${row.amount}: decline this write-off and make a new one.`,
      )
    }
    return
  }
  const exception = row.exception_key === null ? undefined : await findException(trx, row.exception_key)
  if (!exception || exception.resolved_at || !new Decimal(exception.amount ?? 0).equals(row.amount)) {
    throw new ClosingRequestError(
      'conflict',
      'exception_changed',
      `Exception ${row.exception_key} no longer holds ${row.amount} open: decline this disposition and make a new one.`,
    )
  }
}

/**
 * A second person's decision on a disposition waiting for approval: `approve` puts it in force (a named approver
 * who is not the maker), `decline` ends it (an approver, or the maker withdrawing it).
 */
export async function decideDisposition(
  deps: DispositionDeps,
  id: string,
  decision: 'approve' | 'decline',
  /** Why, for the audit log (a decline's). */
  note?: string,
): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const row = await existing(trx, id)
    if (row.status !== 'pending_approval') throw conflict(row, 'pending_approval')
    if (decision === 'approve') {
      assertMayApprove(deps.controls.policy, decided(row), deps.actor)
      await assertStillThere(trx, row)
    } else assertMayWithdraw(decided(row), deps.actor)
    const to = decision === 'approve' ? 'active' : 'declined'
    if (!(await setDispositionStatus(trx, row.id, 'pending_approval', to, deps.actor.name, deps.now))) {
      throw conflict(row, 'pending_approval')
    }
    const after = (await findDisposition(trx, row.id)) as DispositionRow
    if (decision === 'approve') await putInForce(trx, after, deps.now)
    await appendAudit(trx, deps.now, [
      {
        ...auditActor(deps.actor),
        action: decision === 'approve' ? 'disposition.approved' : 'disposition.declined',
        entity: 'disposition',
        entityId: row.id,
        payload: { ...presentDisposition(after), ...(note ? { decisionNote: note } : {}) },
      },
    ])
    return after
  })
}

/**
 * Undoes a disposition in force (or withdraws one waiting for approval): its amount is part of the payment again,
 * and matching reopens the exception that held it; customer credit it applied is reversed. An undone invoice
 * write-off is open on the invoice again. Withdrawing is for its maker or an approver; undoing an approved one
 * for an approver only.
 */
export async function undoDisposition(deps: DispositionDeps, id: string): Promise<DispositionRow> {
  return inLock(deps, async (trx) => {
    const row = await existing(trx, id)
    if (row.status !== 'active' && row.status !== 'pending_approval') throw conflict(row, 'active or pending')
    if (row.status === 'pending_approval') assertMayWithdraw(decided(row), deps.actor)
    else assertMayUndo(decided(row), deps.actor)
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
