import { describe, expect, it } from 'vitest'
import { ApiError } from './api-error.js'
import { IDEMPOTENCY_RETENTION_MS, findReplay, rememberResponse } from './idempotency.js'
import { createEmptyState } from './state.js'

const at = new Date('2026-03-02T09:00:00Z')
const request = {
  orgId: 'org_main',
  operation: 'transfers.create' as const,
  key: 'k1',
  payload: { a: 1 },
  now: at,
}

describe('idempotency store', () => {
  it('replays the first response for an identical request', () => {
    const state = createEmptyState()
    rememberResponse(state, request, 201, { id: 't1' })
    expect(findReplay(state, { ...request, payload: { a: 1 } })).toMatchObject({
      status: 201,
      body: { id: 't1' },
    })
  })

  it('a different payload under the same key is 409 idempotency_key_reused', () => {
    const state = createEmptyState()
    rememberResponse(state, request, 201, { id: 't1' })
    let error: unknown
    try {
      findReplay(state, { ...request, payload: { a: 2 } })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 409, code: 'idempotency_key_reused' })
  })

  it('keys are scoped per organization and per operation', () => {
    const state = createEmptyState()
    rememberResponse(state, request, 201, { id: 't1' })
    expect(findReplay(state, { ...request, orgId: 'org_other', payload: { b: 1 } })).toBeUndefined()
    expect(findReplay(state, { ...request, operation: 'transfers.retry', payload: { b: 1 } })).toBeUndefined()
  })

  it('a key lives 48 hours of virtual time, then identifies nothing', () => {
    const state = createEmptyState()
    rememberResponse(state, request, 201, { id: 't1' })
    const justBefore = new Date(at.getTime() + IDEMPOTENCY_RETENTION_MS - 1)
    expect(findReplay(state, { ...request, now: justBefore })).toBeDefined()
    const expired = new Date(at.getTime() + IDEMPOTENCY_RETENTION_MS)
    expect(findReplay(state, { ...request, payload: { other: true }, now: expired })).toBeUndefined()
  })
})
