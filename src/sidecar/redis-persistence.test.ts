import { describe, expect, it } from 'vitest'
import { persistenceWarning } from './redis-persistence.js'

describe('persistenceWarning', () => {
  it('warns when Redis keeps neither an append-only file nor snapshots', () => {
    expect(persistenceWarning({ aof: false, rdb: false })).toMatch(/lost if Redis restarts/)
  })

  it('is quiet with AOF, with RDB snapshots, or when the settings cannot be read', () => {
    expect(persistenceWarning({ aof: true, rdb: false })).toBeUndefined()
    expect(persistenceWarning({ aof: false, rdb: true })).toBeUndefined()
    expect(persistenceWarning({ unreadable: 'ERR unknown command CONFIG' })).toBeUndefined()
  })
})
