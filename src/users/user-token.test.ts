import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { newUserToken, userTokenHash, USER_TOKEN_PREFIX } from './user-token.js'

describe('user tokens', () => {
  it('are 256 random bits behind a recognisable prefix, never twice the same', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newUserToken))
    expect(tokens.size).toBe(1000)
    for (const token of tokens) {
      expect(token.startsWith(USER_TOKEN_PREFIX)).toBe(true)
      expect(Buffer.from(token.slice(USER_TOKEN_PREFIX.length), 'base64url')).toHaveLength(32)
    }
  })

  it('are kept as their SHA-256 in hex', () => {
    const token = newUserToken()
    expect(userTokenHash(token)).toBe(createHash('sha256').update(token).digest('hex'))
  })
})
