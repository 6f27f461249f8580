import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SEEN_LIMIT, emptyHealth, type HealthObservation } from './health-record.js'
import { incidentIdFor } from './incident-id.js'
import { CONNECTION, HOUR, THRESHOLDS, at, event, isoAt, poll, run, summary } from './health-test-steps.js'
import { observe } from './health-observe.js'

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

  it('keeps one incident when a read shows the change before its own event, stamped a moment later', () => {
    // Chaos seed 99479402: the bank stamps the event a millisecond after the connection's updatedAt, and a poll
    // (or a sync's read) got there first.
    const episode = (start: number, id: string) => [
      poll('reauthRequired', start),
      event('reauthRequired', start + 0.001, `${id}a`, { enteredFrom: 'active' }),
      poll('active', start + 60),
      event('active', start + 60.001, `${id}b`, { enteredFrom: 'reauthRequired' }),
    ]
    const { notices, record } = run([event('active', 0, 'e0'), ...episode(100, 'e1'), ...episode(300, 'e2')])
    const first = incidentIdFor(CONNECTION, 'reauthRequired', isoAt(100))
    const second = incidentIdFor(CONNECTION, 'reauthRequired', isoAt(300))
    expect(notices.map((n) => n.id)).toEqual([
      `${first}:alert`,
      `${first}:recovery`,
      `${second}:alert`,
      `${second}:recovery`,
    ])
    expect(record.closedIncidents.map((c) => c.id)).toEqual([first, second])
  })

  it('still tells a second episode apart after a read-opened incident whose own event came', () => {
    const { notices } = run([
      event('active', 0, 'e0'),
      poll('reauthRequired', 100),
      event('reauthRequired', 100.001, 'e1', { enteredFrom: 'active' }),
      // The "active" of the first episode was lost and no poll fell between the two.
      event('reauthRequired', 300, 'e3', { enteredFrom: 'active' }),
      event('active', 900, 'e4', { enteredFrom: 'reauthRequired' }),
    ])
    expect(summary(notices)).toEqual([
      'alert:reauthRequired',
      'recovery:reauthRequired',
      'alert:reauthRequired',
      'recovery:reauthRequired',
    ])
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
