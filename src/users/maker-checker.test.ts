import { describe, expect, it } from 'vitest'
import type { Actor } from './actor.js'
import { assertSecondPerson, MakerCheckerError } from './maker-checker.js'

const user = (name: string, role: Actor['role']): Actor => ({ name, role, kind: 'user' })

describe('maker-checker', () => {
  it('lets another person with the approver role approve', () => {
    expect(() => assertSecondPerson('alice', user('bob', 'approver'))).not.toThrow()
    expect(() => assertSecondPerson('alice', user('root', 'admin'))).not.toThrow()
  })

  it('refuses the maker approving their own work, whatever their role', () => {
    for (const role of ['approver', 'admin'] as const) {
      const refusal = (() => {
        try {
          assertSecondPerson('alice', user('alice', role))
        } catch (error) {
          return error
        }
      })()
      expect(refusal).toBeInstanceOf(MakerCheckerError)
      expect(refusal).toMatchObject({ code: 'same_person', kind: 'forbidden' })
      expect((refusal as Error).message).toBe(
        'alice made this and cannot also approve it: another person with the approver role must.',
      )
    }
  })

  it('refuses an approver below the role the approval needs, naming both', () => {
    expect(() => assertSecondPerson('alice', user('carol', 'clerk'))).toThrow(
      expect.objectContaining({
        code: 'role_required',
        message: 'Approving needs the approver role; carol is a clerk.',
      }),
    )
    expect(() => assertSecondPerson('alice', user('bob', 'approver'), 'admin')).toThrow(
      expect.objectContaining({ code: 'role_required' }),
    )
  })

  it('counts the built-in admin as one person however many hold its token', () => {
    const admin: Actor = { name: 'admin', role: 'admin', kind: 'token' }
    expect(() => assertSecondPerson('admin', admin)).toThrow(expect.objectContaining({ code: 'same_person' }))
  })
})
