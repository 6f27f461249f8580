import { describe, expect, it } from 'vitest'
import { createEmptyState } from './state.js'
import { parseSandbox, serializeSandbox, STATE_FILE_VERSION, type SavedSandbox } from './state-file.js'

describe('the sandbox state file format', () => {
  it('brings Maps and Dates back as Maps and Dates, nested ones too', () => {
    const state = createEmptyState()
    const at = new Date('2026-03-02T09:00:00.123Z')
    state.apiKeys.set('sk_test_1', {
      key: 'sk_test_1',
      orgId: 'org_main',
      environment: 'test',
      scopes: ['connections:read'],
      expiresAt: at,
      label: 'full access',
    })
    state.syncSeq = 7
    state.deliveries.push({
      id: 'dlv_1',
      webhookId: 'wh_1',
      eventId: 'evt_1',
      eventType: 'test',
      body: '{"createdAt":"2026-03-02T09:00:00.000Z"}',
      attempts: 1,
      nextAttemptAt: at,
      status: 'pending',
      lastStatusCode: null,
    })
    const saved: SavedSandbox = {
      version: STATE_FILE_VERSION,
      seed: 42,
      generation: 3,
      clock: { now: at, offsetMs: -5 },
      state,
    }
    const back = parseSandbox(serializeSandbox(saved))
    expect(back).toEqual(saved)
    expect(back.state.apiKeys).toBeInstanceOf(Map)
    expect(back.state.apiKeys.get('sk_test_1')!.expiresAt).toBeInstanceOf(Date)
    expect(back.state.deliveries[0]!.nextAttemptAt.getTime()).toBe(at.getTime())
    expect(back.state.deliveries[0]!.body).toBe(saved.state.deliveries[0]!.body)
  })

  it('refuses a file of another version instead of reading half of it', () => {
    expect(() => parseSandbox(JSON.stringify({ version: 99, state: {}, clock: {} }))).toThrow(/version 1/)
  })
})
