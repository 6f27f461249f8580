import { describe, expect, it } from 'vitest'
import { observe, tick } from './index.js'
import { emptyHealth, type HealthEffect, type HealthObservation } from './health-record.js'
import { connectionNotice } from './connection-notice.js'
import type { ConnectionRef } from './notice.js'

const T0 = Date.parse('2026-03-02T09:00:00.000Z')
const HOUR = 3600
const at = (seconds: number) => new Date(T0 + seconds * 1000)
const THRESHOLDS = { erroredAfterSeconds: HOUR, staleSyncSeconds: 26 * HOUR, reminderSeconds: 4 * HOUR }
const PORTAL = 'https://online.northwind-bank.example/business'
const CONNECTION: ConnectionRef = {
  id: 'conn_7f3a',
  entityId: '0b6f1d2e-8c3a-4d5e-9f10-1a2b3c4d5e6f',
  institutionId: 'northwind',
  institutionName: 'Northwind Bank',
  portalUrl: PORTAL,
  delegatedUser: { name: 'Dana Ops', username: 'dana.ops' },
}

type Notable = Exclude<HealthEffect, { type: 'history' }>

function effectsOf(steps: (HealthObservation | { tick: number })[]): Notable[] {
  let record = emptyHealth(CONNECTION.id)
  const out: Notable[] = []
  for (const step of steps) {
    const result =
      'tick' in step
        ? tick(record, at(step.tick), THRESHOLDS)
        : observe(record, step, new Date(Date.parse(step.observedAt)), THRESHOLDS)
    record = result.record
    for (const e of result.effects) if (e.type !== 'history') out.push(e)
  }
  return out
}

const webhook = (
  status: HealthObservation['status'],
  seconds: number,
  extra: Partial<HealthObservation> = {},
) =>
  ({
    status,
    observedAt: at(seconds).toISOString(),
    source: 'webhook',
    eventId: `e${seconds}`,
    ...extra,
  }) satisfies HealthObservation

function first(steps: (HealthObservation | { tick: number })[], connection = CONNECTION) {
  const [effect] = effectsOf(steps)
  if (!effect) throw new Error('no effect')
  return connectionNotice(effect, connection)
}

describe('connection notices', () => {
  it('tells who must sign in to which portal when re-authentication is needed', () => {
    const notice = first([
      webhook('reauthRequired', 0, {
        errorCode: 'password_expired',
        errorMessage: 'The password has expired',
      }),
    ])
    expect(notice).toMatchObject({ type: 'alert', severity: 'critical', kind: 'reauthRequired' })
    expect(notice.title).toBe('Northwind Bank: bank connection needs re-authentication')
    expect(notice.text).toContain('Connection conn_7f3a (Northwind Bank)')
    expect(notice.text).toContain('The bank says: The password has expired (password_expired).')
    expect(notice.action).toContain(
      `The delegated user Dana Ops (sign-in: dana.ops) must sign in to the bank portal at ${PORTAL}`,
    )
    expect(notice.action).toContain('PUT /api/connections/conn_7f3a/credentials')
    expect(notice.fields).toEqual(
      expect.arrayContaining([
        { label: 'Connection', value: 'conn_7f3a' },
        { label: 'Bank', value: 'Northwind Bank' },
        { label: 'Portal', value: PORTAL },
        { label: 'Error code', value: 'password_expired' },
      ]),
    )
  })

  it('names the bank by its portal host when the institution is not in the catalog', () => {
    const notice = first([webhook('reauthRequired', 0)], {
      id: 'conn_1',
      institutionName: null,
      portalUrl: 'https://portal.smallbank.example/login',
    })
    expect(notice.title).toBe('portal.smallbank.example: bank connection needs re-authentication')
    expect(notice.action).toContain('The delegated user of this connection must sign in')
  })

  it('asks to correct the configuration when it is invalid', () => {
    const notice = first([webhook('invalidConfig', 0)])
    expect(notice.severity).toBe('critical')
    expect(notice.action).toMatch(/^Correct the connection's configuration/)
    expect(notice.action).toContain(PORTAL)
  })

  it('asks to re-create a revoked connection, with the command to do it', () => {
    const notice = first([webhook('revoked', 0)])
    expect(notice.action).toContain(
      `Re-create the connection (bankrec connect --entity ${CONNECTION.entityId} --portal-url ${PORTAL})`,
    )
  })

  it('says how long a connection has been errored', () => {
    const notice = first([webhook('errored', 0, { errorMessage: 'Bank timed out' }), { tick: 90 * 60 }])
    expect(notice).toMatchObject({ severity: 'warning', kind: 'errored' })
    expect(notice.title).toBe('Northwind Bank: bank connection errored for 1 h 30 min')
    expect(notice.text).toContain('errored since 2026-03-02 09:00 UTC')
    expect(notice.text).toContain('Bank timed out')
  })

  it('says how many hours ago a stale connection last synced', () => {
    const notice = first([
      {
        status: 'active',
        observedAt: at(0).toISOString(),
        source: 'poll',
        lastSyncedAt: at(0).toISOString(),
      },
      { tick: 27 * HOUR },
    ])
    expect(notice).toMatchObject({ severity: 'warning', kind: 'staleSync' })
    expect(notice.title).toBe('Northwind Bank: no successful sync for 1 d 3 h')
    expect(notice.text).toContain('last successful sync was 2026-03-02 09:00 UTC, 1 d 3 h ago')
    expect(notice.action).toContain('PUT /v1/connections/conn_7f3a/sync')
  })

  it('words a reminder with its number, how long it has been open and the same action', () => {
    const [alert, reminder] = effectsOf([webhook('reauthRequired', 0), { tick: 4 * HOUR }])
    const notice = connectionNotice(reminder!, CONNECTION)
    expect(notice.type).toBe('reminder')
    expect(notice.title).toBe('Reminder 1: Northwind Bank: bank connection needs re-authentication')
    expect(notice.text).toMatch(/^Still open after 4 h\./)
    expect(notice.action).toBe(connectionNotice(alert!, CONNECTION).action)
    expect(notice.routeSeverity).toBe('critical')
  })

  it('words a recovery as information that goes where the alert went', () => {
    const [, recovery] = effectsOf([webhook('reauthRequired', 0), webhook('active', 2 * HOUR + 300)])
    const notice = connectionNotice(recovery!, CONNECTION)
    expect(notice).toMatchObject({
      type: 'recovery',
      severity: 'info',
      routeSeverity: 'critical',
      action: null,
    })
    expect(notice.title).toBe('Recovered: Northwind Bank connection is active again')
    expect(notice.text).toContain(
      'The re-authentication incident that started 2026-03-02 09:00 UTC is closed after 2 h 5 min.',
    )
  })

  it('reports a paused connection as information with nothing to do', () => {
    const notice = first([webhook('paused', 0)])
    expect(notice).toMatchObject({ type: 'info', severity: 'info', action: null, incidentId: null })
    expect(notice.text).toContain('intentionally suspended')
  })

  it('copies only the known connection fields into the notice', () => {
    const leaky = { ...CONNECTION, password: 'hunter2', apiKey: 'sk_live_123' } as ConnectionRef
    const notice = first([webhook('reauthRequired', 0)], leaky)
    expect(JSON.stringify(notice)).not.toMatch(/hunter2|sk_live_123/)
  })
})
