import { assertSecondPerson, MakerCheckerError, roleAllows, type Actor } from '../users/index.js'
import type { ApprovalPolicy } from './approval-policy.js'

/** What a person decides on: who made it, and whether a second person approved it (null: made alone). */
export type Decided = { madeBy: string | null; approvedBy: string | null }

/**
 * A second person with the approver role who is not the maker; the built-in admin of KIT_API_TOKEN (the CLI
 * without BANKREC_USER_TOKEN) is nobody in particular, so it approves only when APPROVAL_BUILTIN_ADMIN_MAY_APPROVE
 * allows it.
 */
export function assertMayApprove(policy: ApprovalPolicy, document: Decided, actor: Actor): void {
  assertSecondPerson(document.madeBy ?? '', actor)
  if (actor.kind === 'token' && !policy.builtinAdminMayApprove) {
    throw new MakerCheckerError(
      'role_required',
      `Approving needs a named user with the approver role (a user token, BANKREC_USER_TOKEN for the CLI); ` +
        `${actor.name} is the built-in admin of KIT_API_TOKEN.`,
    )
  }
}

/** Declining or withdrawing what waits: its maker, or an approver. */
export function assertMayWithdraw(document: Decided, actor: Actor): void {
  if (roleAllows(actor.role, 'approver') || actor.name === document.madeBy) return
  throw new MakerCheckerError(
    'role_required',
    `Only its maker (${document.madeBy ?? 'unknown'}) or an approver may withdraw this; ${actor.name} is a ${actor.role}.`,
  )
}

/** Undoing what is in force: an approved one only an approver; one made alone its maker or an approver. */
export function assertMayUndo(document: Decided, actor: Actor): void {
  if (roleAllows(actor.role, 'approver')) return
  if (document.approvedBy !== null) {
    throw new MakerCheckerError(
      'role_required',
      `${document.approvedBy} approved this: only an approver may undo it; ${actor.name} is a ${actor.role}.`,
    )
  }
  assertMayWithdraw(document, actor)
}
