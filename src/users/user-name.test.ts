import { describe, expect, it } from 'vitest'
import { UserName } from './user-name.js'

describe('user names', () => {
  it('trims and lower-cases, so one person has one name', () => {
    expect(UserName.parse('  Alice ')).toBe('alice')
    expect(UserName.parse('Bob.Smith@Example.com')).toBe('bob.smith@example.com')
  })

  it.each([
    ['', 'must be 1–64'],
    ['a b', 'must be 1–64'],
    ['-alice', 'must be 1–64'],
    ['x'.repeat(65), 'must be 1–64'],
    ['al\u0000ice', 'must be 1–64'],
    ['engine', 'reserved'],
    ['Person', 'reserved'],
    ['admin', 'reserved'],
  ])('refuses %j', (name, message) => {
    const parsed = UserName.safeParse(name)
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]?.message).toContain(message)
  })
})
