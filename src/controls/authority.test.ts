import { describe, expect, it } from 'vitest'
import type { Actor } from '../users/index.js'
import { NO_APPROVALS } from './approval-policy.js'
import { assertMayApprove, assertMayUndo, assertMayWithdraw } from './authority.js'

const clerk = (name: string): Actor => ({ name, role: 'clerk', kind: 'user' })
const approver = (name: string): Actor => ({ name, role: 'approver', kind: 'user' })
const admin: Actor = { name: 'admin', role: 'admin', kind: 'token' }
const code = (fn: () => void) => {
  try {
    fn()
    return 'allowed'
  } catch (error) {
    return (error as { code: string }).code
  }
}

describe('who may decide', () => {
  const made = { madeBy: 'carl', approvedBy: null }

  it('approves: a named approver who is not the maker; the built-in admin only when opted in', () => {
    expect(code(() => assertMayApprove(NO_APPROVALS, made, approver('april')))).toBe('allowed')
    expect(code(() => assertMayApprove(NO_APPROVALS, made, clerk('cleo')))).toBe('role_required')
    expect(code(() => assertMayApprove(NO_APPROVALS, { ...made, madeBy: 'april' }, approver('april')))).toBe(
      'same_person',
    )
    expect(code(() => assertMayApprove(NO_APPROVALS, made, admin))).toBe('role_required')
    expect(code(() => assertMayApprove({ ...NO_APPROVALS, builtinAdminMayApprove: true }, made, admin))).toBe(
      'allowed',
    )
    expect(
      code(() =>
        assertMayApprove(
          { ...NO_APPROVALS, builtinAdminMayApprove: true },
          { ...made, madeBy: 'admin' },
          admin,
        ),
      ),
    ).toBe('same_person')
  })

  it('withdraws what waits: its maker or an approver', () => {
    expect(code(() => assertMayWithdraw(made, clerk('carl')))).toBe('allowed')
    expect(code(() => assertMayWithdraw(made, approver('april')))).toBe('allowed')
    expect(code(() => assertMayWithdraw(made, clerk('cleo')))).toBe('role_required')
  })

  it('undoes what is in force: made alone, its maker or an approver; approved, an approver only', () => {
    expect(code(() => assertMayUndo(made, clerk('carl')))).toBe('allowed')
    expect(code(() => assertMayUndo(made, clerk('cleo')))).toBe('role_required')
    const approved = { madeBy: 'carl', approvedBy: 'april' }
    expect(code(() => assertMayUndo(approved, clerk('carl')))).toBe('role_required')
    expect(code(() => assertMayUndo(approved, approver('abe')))).toBe('allowed')
  })
})
