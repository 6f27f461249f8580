import { describe, expect, it } from 'vitest'
import type { SyncDialect } from '../api-client/index.js'
import { newDialect } from './sync-connection.js'

const kind: SyncDialect = { kindField: 'kind', casing: 'lowercase', removed: null }

describe('newDialect', () => {
  it('reports a stream dialect when it is first found', () => {
    expect(newDialect(null, kind)).toEqual(kind)
  })

  it('reports nothing for a page that says nothing new, so a stream is logged once and not per page', () => {
    expect(newDialect(kind, kind)).toBeNull()
    const known = { ...kind, removed: 'bare id' as const }
    expect(newDialect(known, kind)).toBeNull()
    expect(newDialect(known, known)).toBeNull()
  })

  it('reports the shape of the first removed event, keeping what was known', () => {
    expect(newDialect(kind, { ...kind, removed: 'bare id' })).toEqual({ ...kind, removed: 'bare id' })
  })

  it('reports a change of kind field or casing as a new dialect', () => {
    const known = { ...kind, removed: 'bare id' as const }
    const shouting: SyncDialect = { kindField: 'changeType', casing: 'uppercase', removed: null }
    expect(newDialect(known, shouting)).toEqual(shouting)
    expect(newDialect(known, { ...kind, casing: 'uppercase' })).toEqual({ ...kind, casing: 'uppercase' })
  })
})
