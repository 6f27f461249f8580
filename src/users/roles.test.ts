import { describe, expect, it } from 'vitest'
import { ROLES, RoleSchema, roleAllows } from './roles.js'

describe('roles', () => {
  it('lets each role do what the roles before it may, and nothing after', () => {
    expect(roleAllows('viewer', 'viewer')).toBe(true)
    expect(roleAllows('viewer', 'clerk')).toBe(false)
    expect(roleAllows('clerk', 'viewer')).toBe(true)
    expect(roleAllows('clerk', 'approver')).toBe(false)
    expect(roleAllows('approver', 'clerk')).toBe(true)
    expect(roleAllows('approver', 'admin')).toBe(false)
    for (const role of ROLES) expect(roleAllows('admin', role)).toBe(true)
  })

  it('refuses an unknown role by listing the four', () => {
    const parsed = RoleSchema.safeParse('superuser')
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.message).toBe('must be one of viewer, clerk, approver, admin')
  })
})
