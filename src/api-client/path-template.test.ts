import { describe, expect, it } from 'vitest'
import { pathTemplate } from './path-template.js'

describe('pathTemplate', () => {
  it('replaces the id of a resource path and keeps the action', () => {
    expect(pathTemplate('/v1/connections/4f6c1a2e-0d0b-4b38-9d0e-5a4f0c2b9e11')).toBe('/v1/connections/{id}')
    expect(pathTemplate('/v1/connections/conn_123/sync')).toBe('/v1/connections/{id}/sync')
    expect(pathTemplate('/v1/webhooks/wh_1/test')).toBe('/v1/webhooks/{id}/test')
  })

  it('keeps collection paths and the fixed sync path as they are', () => {
    expect(pathTemplate('/v1/transactions')).toBe('/v1/transactions')
    expect(pathTemplate('/v1/transactions/sync')).toBe('/v1/transactions/sync')
    expect(pathTemplate('/v1/transactions/tx_9')).toBe('/v1/transactions/{id}')
  })
})
