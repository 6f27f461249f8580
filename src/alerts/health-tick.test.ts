import { describe, expect, it } from 'vitest'
import { incidentIdFor } from './incident-id.js'
import {
  CONNECTION,
  HOUR,
  T0,
  THRESHOLDS,
  at,
  event,
  isoAt,
  poll,
  run,
  summary,
} from './health-test-steps.js'
import { tick } from './health-tick.js'

describe('connection health: reminders', () => {
  it('reminds every reminderSeconds on the clock passed in, and stops after the recovery', () => {
    const { notices } = run(
      [
        event('reauthRequired', 0, 'e1'),
        { tick: 4 * HOUR - 1 },
        { tick: 4 * HOUR },
        { tick: 4 * HOUR + 1 },
        { tick: 8 * HOUR },
        event('active', 9 * HOUR, 'e2'),
        { tick: 20 * HOUR },
      ],
      { now: at(0) },
    )
    expect(notices.map((e) => `${e.type}@${(Date.parse(e.occurredAt) - T0) / 1000}`)).toEqual([
      'alert@0',
      `reminder@${4 * HOUR}`,
      `reminder@${8 * HOUR}`,
      `recovery@0`,
    ])
    expect(
      notices.filter((e) => e.type === 'reminder').map((e) => e.type === 'reminder' && e.sequence),
    ).toEqual([1, 2])
  })

  it('sends one reminder, not a burst, when a tick comes several intervals late', () => {
    const opened = run([event('reauthRequired', 0, 'e1')], { now: at(0) })
    const late = tick(opened.record, at(20 * HOUR), THRESHOLDS)
    expect(summary(late.effects)).toEqual(['reminder:reauthRequired'])
    expect(summary(tick(late.record, at(24 * HOUR - 1), THRESHOLDS).effects)).toEqual([])
    expect(summary(tick(late.record, at(24 * HOUR), THRESHOLDS).effects)).toEqual(['reminder:reauthRequired'])
  })

  it('gives reminders ids that follow their sequence', () => {
    const opened = run([event('revoked', 0, 'e1')], { now: at(0) })
    const first = tick(opened.record, at(4 * HOUR), THRESHOLDS)
    const second = tick(first.record, at(8 * HOUR), THRESHOLDS)
    const incidentId = incidentIdFor(CONNECTION, 'revoked', isoAt(0))
    expect([...first.effects, ...second.effects].map((e) => e.type !== 'history' && e.id)).toEqual([
      `${incidentId}:reminder:1`,
      `${incidentId}:reminder:2`,
    ])
  })
})

describe('connection health: errored too long', () => {
  it('alerts nothing when the connection recovers within the threshold', () => {
    const { notices } = run(
      [event('errored', 0, 'e1'), { tick: HOUR - 1 }, event('active', HOUR - 1, 'e2')],
      {
        now: at(HOUR - 1),
      },
    )
    expect(notices).toEqual([])
  })

  it('alerts once when errored reaches the threshold, then recovers when active', () => {
    const { notices } = run([
      event('errored', 0, 'e1', { errorCode: 'bank_unavailable' }),
      { tick: HOUR },
      { tick: HOUR + 60 },
      event('errored', 2 * HOUR, 'e2'),
      event('active', 3 * HOUR, 'e3'),
    ])
    expect(summary(notices)).toEqual(['alert:errored', 'recovery:errored'])
    expect(notices[0]).toMatchObject({ startedAt: isoAt(0), errorCode: 'bank_unavailable' })
  })

  it('gives the errored incident the same id whenever the tick runs', () => {
    const opened = run([event('errored', 0, 'e1')], { now: at(0) }).record
    const early = tick(opened, at(HOUR), THRESHOLDS).effects[0]
    const late = tick(opened, at(5 * HOUR), THRESHOLDS).effects[0]
    expect(early).toMatchObject({ incidentId: incidentIdFor(CONNECTION, 'errored', isoAt(HOUR)) })
    expect(late).toMatchObject({ incidentId: incidentIdFor(CONNECTION, 'errored', isoAt(HOUR)) })
  })

  it('opens at once when an errored status is first seen after the threshold already passed', () => {
    const { notices } = run([event('errored', 0, 'e1')], { now: at(2 * HOUR) })
    expect(summary(notices)).toEqual(['alert:errored'])
  })
})

describe('connection health: stale sync', () => {
  const STALE = 26 * HOUR

  it('alerts when an active connection has not synced for staleSyncSeconds, and recovers on a fresh sync', () => {
    const { notices, record } = run([
      poll('active', 0, 0),
      { tick: STALE - 1 },
      { tick: STALE },
      { tick: STALE + 60 },
      poll('active', STALE + 600, STALE + 500),
      { tick: STALE + 700 },
    ])
    expect(summary(notices)).toEqual(['alert:staleSync', 'recovery:staleSync'])
    expect(notices[0]).toMatchObject({ lastSyncedAt: isoAt(0), startedAt: isoAt(STALE) })
    expect(notices[1]).toMatchObject({ recoveredAt: isoAt(STALE + 500) })
    expect(record.incident).toBeNull()
  })

  it('gives a connection that just became active again the full threshold before calling it stale', () => {
    const { notices } = run([
      poll('active', 0, 0),
      event('reauthRequired', 60, 'e1'),
      event('active', 30 * HOUR, 'e2'),
      { tick: 30 * HOUR + STALE - 1 },
    ])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
    const later = run([{ tick: 30 * HOUR + STALE }], {
      start: run([poll('active', 0, 0), event('reauthRequired', 60, 'e1'), event('active', 30 * HOUR, 'e2')])
        .record,
    })
    expect(summary(later.notices)).toEqual(['alert:staleSync'])
  })

  it('does not call a paused connection stale', () => {
    expect(run([poll('paused', 0, 0), { tick: 40 * HOUR }]).notices.map((e) => e.type)).toEqual(['info'])
  })

  it('only moves lastSyncedAt forward, whatever order polls arrive in', () => {
    const { record } = run([poll('active', 100, 90), poll('active', 50, 40)])
    expect(record.lastSyncedAt).toBe(isoAt(90))
  })
})
