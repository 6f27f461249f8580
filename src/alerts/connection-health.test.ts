import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ConnectionStatus } from '../api-client/index.js'
import { observe, tick } from './connection-health.js'
import {
  SEEN_LIMIT,
  emptyHealth,
  type ConnectionHealth,
  type HealthEffect,
  type HealthObservation,
} from './health-record.js'
import { incidentIdFor } from './incident-id.js'

const CONNECTION = 'c0a80101-0000-4000-8000-000000000001'
const T0 = Date.parse('2026-03-02T09:00:00.000Z')
const HOUR = 3600
const at = (seconds: number) => new Date(T0 + seconds * 1000)
const isoAt = (seconds: number) => at(seconds).toISOString()
const THRESHOLDS = { erroredAfterSeconds: HOUR, staleSyncSeconds: 26 * HOUR, reminderSeconds: 4 * HOUR }

function event(
  status: ConnectionStatus,
  seconds: number,
  eventId: string,
  extra: Partial<HealthObservation> = {},
) {
  return {
    status,
    observedAt: isoAt(seconds),
    source: 'webhook',
    eventId,
    ...extra,
  } satisfies HealthObservation
}

function poll(
  status: ConnectionStatus,
  seconds: number,
  lastSyncedAt: number | null = null,
  extra: Partial<HealthObservation> = {},
): HealthObservation {
  return {
    ...extra,
    status,
    observedAt: isoAt(seconds),
    source: 'poll',
    lastSyncedAt: lastSyncedAt === null ? null : isoAt(lastSyncedAt),
  }
}

type Step = HealthObservation | { tick: number }

/**
 * Feeds observations (at `now` = their own time plus a minute, unless given) and ticks; returns every effect.
 */
function run(steps: Step[], options: { now?: Date; start?: ConnectionHealth } = {}) {
  let record = options.start ?? emptyHealth(CONNECTION)
  const effects: HealthEffect[] = []
  for (const step of steps) {
    const result =
      'tick' in step
        ? tick(record, at(step.tick), THRESHOLDS)
        : observe(record, step, options.now ?? new Date(Date.parse(step.observedAt) + 60_000), THRESHOLDS)
    record = result.record
    effects.push(...result.effects)
  }
  return { record, effects, notices: effects.filter((e) => e.type !== 'history') }
}

const summary = (effects: HealthEffect[]) =>
  effects.filter((e) => e.type !== 'history').map((e) => `${e.type}:${e.kind}`)

describe('connection health: status incidents', () => {
  it('alerts once when a connection enters reauthRequired and sends one recovery when it is active again', () => {
    const { notices, record } = run([
      event('active', 0, 'e0'),
      event('reauthRequired', 60, 'e1'),
      event('active', 600, 'e2'),
    ])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
    const [alert, recovery] = notices
    const incidentId = incidentIdFor(CONNECTION, 'reauthRequired', isoAt(60))
    expect(alert).toMatchObject({
      incidentId,
      id: `${incidentId}:alert`,
      startedAt: isoAt(60),
      status: 'reauthRequired',
    })
    expect(recovery).toMatchObject({ incidentId, id: `${incidentId}:recovery`, recoveredAt: isoAt(600) })
    expect(record.incident).toBeNull()
    expect(record.closedIncidents.map((c) => c.id)).toEqual([incidentId])
  })

  it('carries the bank error code and message into the alert', () => {
    const { notices } = run([
      event('reauthRequired', 0, 'e1', { errorCode: 'password_expired', errorMessage: 'Password expired' }),
    ])
    expect(notices[0]).toMatchObject({
      type: 'alert',
      errorCode: 'password_expired',
      errorMessage: 'Password expired',
    })
  })

  it.each(['invalidConfig', 'revoked'] as const)('alerts when a connection enters %s', (status) => {
    const { notices, record } = run([event('active', 0, 'e0'), event(status, 60, 'e1')])
    expect(summary(notices)).toEqual([`alert:${status}`])
    expect(record.incident?.kind).toBe(status)
  })

  it('replaces an open incident with a new alert when the problem changes kind, without a recovery', () => {
    const { notices, record } = run([event('reauthRequired', 0, 'e1'), event('revoked', 60, 'e2')])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'alert:revoked'])
    expect(notices[1]).toMatchObject({ supersedes: incidentIdFor(CONNECTION, 'reauthRequired', isoAt(0)) })
    expect(record.incident?.kind).toBe('revoked')
  })

  it('keeps the incident open through pendingActivation and errored until the connection is active', () => {
    const { notices } = run([
      event('reauthRequired', 0, 'e1'),
      event('pendingActivation', 60, 'e2'),
      event('errored', 120, 'e3'),
      { tick: 4 * HOUR + 60 },
      { tick: 8 * HOUR + 60 },
      event('active', 10 * HOUR, 'e4'),
    ])
    expect(summary(notices)).toEqual([
      'alert:reauthRequired',
      'reminder:reauthRequired',
      'reminder:reauthRequired',
      'recovery:reauthRequired',
    ])
  })

  it('tells two re-authentication episodes apart when the event says the connection was active in between', () => {
    const { notices, record } = run([
      event('reauthRequired', 0, 'e1', { enteredFrom: 'active' }),
      // The "active" webhook of the first episode was lost and no poll fell between the two.
      poll('reauthRequired', 300),
      event('reauthRequired', 300, 'e3', { enteredFrom: 'active' }),
      event('active', 900, 'e4', { enteredFrom: 'reauthRequired' }),
    ])
    const first = incidentIdFor(CONNECTION, 'reauthRequired', isoAt(0))
    const second = incidentIdFor(CONNECTION, 'reauthRequired', isoAt(300))
    expect(notices.map((n) => n.id)).toEqual([
      `${first}:alert`,
      `${first}:recovery`,
      `${second}:alert`,
      `${second}:recovery`,
    ])
    expect(notices[1]).toMatchObject({ recoveredAt: isoAt(300) })
    expect(record.closedIncidents.map((c) => c.id)).toEqual([first, second])
  })

  it('keeps one incident when the stated previous status does not end it, or says nothing new', () => {
    const { notices } = run([
      event('reauthRequired', 0, 'e1'),
      event('reauthRequired', 300, 'e2', { enteredFrom: 'pendingActivation' }),
      event('reauthRequired', 400, 'e3', { enteredFrom: 'reauthRequired' }),
      event('active', 900, 'e4'),
    ])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
  })

  it.each(['draft', 'pendingActivation', 'active'] as const)(
    'says nothing about a connection in %s',
    (status) => {
      expect(run([event(status, 0, 'e1')]).notices).toEqual([])
    },
  )
})

describe('connection health: duplicates and reordering', () => {
  // A connection forced through reauthRequired → pendingActivation → active, seen by webhook and by polling.
  const episode: HealthObservation[] = [
    event('active', 0, 'e0'),
    event('reauthRequired', 600, 'e1', { errorCode: 'password_expired' }),
    poll('reauthRequired', 600, null, { errorCode: 'password_expired' }),
    event('pendingActivation', 1200, 'e2'),
    event('active', 1800, 'e3'),
    poll('active', 1800, 1700),
  ]
  const now = at(2400)
  const canonical = run(episode, { now })

  it('gives exactly one alert and one recovery in order', () => {
    expect(summary(canonical.effects)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
  })

  it('gives identical alerts and recoveries whatever the order and however often each event arrives', () => {
    const n = episode.length
    const deliveries = fc
      .tuple(
        fc.shuffledSubarray(episode, { minLength: n, maxLength: n }),
        fc.array(fc.tuple(fc.nat(n - 1), fc.nat(1000)), { maxLength: 12 }),
      )
      .map(([order, extra]) => {
        const list = [...order]
        for (const [index, position] of extra) list.splice(position % (list.length + 1), 0, episode[index]!)
        return list
      })
    fc.assert(
      fc.property(deliveries, (list) => {
        const result = run(list, { now })
        expect(result.notices).toEqual(canonical.notices)
        expect(result.effects.filter((e) => e.type === 'history')).toHaveLength(list.length)
        expect(result.record.status).toBe('active')
        expect(result.record.incident).toBeNull()
      }),
    )
  })

  it('records a redelivered event in history without applying it again', () => {
    const { effects } = run([event('reauthRequired', 0, 'e1'), event('reauthRequired', 0, 'e1')])
    expect(
      effects.map((e) => (e.type === 'history' ? `history:${e.applied}:${e.duplicate}` : e.type)),
    ).toEqual(['history:true:false', 'alert', 'history:false:true'])
  })

  it('does not change the status for an observation older than the last applied one', () => {
    const { record, effects } = run([event('active', 600, 'e2'), event('paused', 300, 'e1')])
    expect(record.status).toBe('active')
    expect(record.lastApplied).toEqual({ observedAt: isoAt(600), eventId: 'e2' })
    expect(effects.at(-1)).toMatchObject({
      type: 'history',
      status: 'paused',
      applied: false,
      duplicate: false,
    })
    expect(summary(effects)).toEqual([])
  })

  it('orders observations with the same time by event id', () => {
    const { record } = run([event('active', 0, 'b'), event('paused', 0, 'a')])
    expect(record.status).toBe('active')
  })

  it('reports a reauthRequired that was resolved before bankrec saw it as one alert with its recovery', () => {
    const { notices, record } = run([event('active', 600, 'e2'), event('reauthRequired', 300, 'e1')])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
    expect(record.incident).toBeNull()
  })

  it('opens the incident when a late reauthRequired is followed only by statuses that do not recover', () => {
    const { notices, record } = run([
      event('pendingActivation', 600, 'e2'),
      event('reauthRequired', 300, 'e1'),
    ])
    expect(summary(notices)).toEqual(['alert:reauthRequired'])
    expect(record.incident).toMatchObject({ kind: 'reauthRequired', startedAt: isoAt(300) })
    expect(record.status).toBe('pendingActivation')
  })

  it('does not alert for a late observation inside an incident already known', () => {
    const { notices } = run([
      event('reauthRequired', 0, 'e1'),
      event('active', 900, 'e3'),
      event('reauthRequired', 300, 'e2'),
    ])
    expect(summary(notices)).toEqual(['alert:reauthRequired', 'recovery:reauthRequired'])
  })

  it('remembers at most SEEN_LIMIT observations and only records one older than all of them', () => {
    const many = Array.from({ length: SEEN_LIMIT + 5 }, (_, i) => event('active', 100 + i, `e${i}`))
    const { record } = run(many)
    expect(record.seen).toHaveLength(SEEN_LIMIT)
    const late = observe(record, event('reauthRequired', 0, 'old'), at(200), THRESHOLDS)
    expect(summary(late.effects)).toEqual([])
    expect(late.record).toEqual(record)
  })

  it('yields the same incident id when the same events are replayed at another time', () => {
    const events = [event('reauthRequired', 0, 'e1')]
    const first = run(events, { now: at(60) }).notices[0]
    const replay = run(events, { now: at(9 * HOUR) }).notices[0]
    expect(first?.type === 'alert' && first.incidentId).toBe(replay?.type === 'alert' && replay.incidentId)
  })
})

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

describe('connection health: paused', () => {
  it('reports paused and resumed as information only, with no incident and no reminder', () => {
    const { notices, record } = run([
      event('active', 0, 'e0'),
      event('paused', 60, 'e1'),
      { tick: 12 * HOUR },
      event('active', 12 * HOUR, 'e2'),
    ])
    expect(summary(notices)).toEqual(['info:paused', 'info:resumed'])
    expect(record.incident).toBeNull()
  })
})

describe('connection health: input', () => {
  it('refuses an observedAt that is not a date-time', () => {
    expect(() =>
      observe(
        emptyHealth(CONNECTION),
        event('active', 0, 'e1', { observedAt: 'yesterday' }),
        at(0),
        THRESHOLDS,
      ),
    ).toThrow(RangeError)
  })

  it('treats the same instant written two ways as the same observation', () => {
    const first = observe(emptyHealth(CONNECTION), event('active', 0, 'e1'), at(0), THRESHOLDS)
    const again = observe(
      first.record,
      event('active', 0, 'e1', { observedAt: '2026-03-02T10:00:00+01:00' }),
      at(0),
      THRESHOLDS,
    )
    expect(again.effects).toEqual([expect.objectContaining({ type: 'history', duplicate: true })])
  })
})
