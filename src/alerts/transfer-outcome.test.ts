import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TransferStatus } from '../api-client/index.js'
import { TransferPollSchedule } from './config.js'
import {
  newTransferTracking,
  observeTransfer,
  tickTransfer,
  transferPollDelaySeconds,
  type TransferEffect,
  type TransferTracking,
} from './transfer-outcome.js'

const TRANSFER = '5f0c6a52-3b1d-4e8f-9a7b-0c1d2e3f4a5b'
const T0 = Date.parse('2026-03-02T09:00:00.000Z')
const HOUR = 3600
const at = (seconds: number) => new Date(T0 + seconds * 1000)
const STATUSES: TransferStatus[] = [
  'queued',
  'executing',
  'pending_bank_approval',
  'completed',
  'failed',
  'returned',
  'cancelled',
  'unknown',
]

/** What entering each status says, from the issue. */
const ON_ENTER: Record<TransferStatus, string[]> = {
  queued: [],
  executing: [],
  pending_bank_approval: ['alert:pending_bank_approval'],
  completed: ['app_event:transfer.completed'],
  failed: ['alert:failed', 'app_event:transfer.failed'],
  returned: ['alert:returned', 'app_event:transfer.failed'],
  cancelled: ['alert:cancelled', 'app_event:transfer.failed'],
  unknown: ['alert:unknown'],
}
const ALERTING = new Set(['pending_bank_approval', 'failed', 'returned', 'cancelled', 'unknown'])
const TERMINAL = new Set(['completed', 'failed', 'returned', 'cancelled'])

const describeEffect = (e: TransferEffect) =>
  e.type === 'app_event' ? `app_event:${e.event}` : `${e.type}:${e.kind}`

function trackingIn(status: TransferStatus | null): TransferTracking {
  if (status === null) return newTransferTracking(TRANSFER)
  return observeTransfer(newTransferTracking(TRANSFER), { status, observedAt: at(0).toISOString() }, at(0))
    .tracking
}

describe('transfer outcomes', () => {
  const transitions = [null, ...STATUSES].flatMap((from) => STATUSES.map((to) => [from, to] as const))

  it.each(transitions)('from %s to %s gives the alerts and app events of the table', (from, to) => {
    const step = observeTransfer(
      trackingIn(from),
      { status: to, observedAt: at(60).toISOString(), failureReason: { message: 'Insufficient funds' } },
      at(60),
    )
    // Leaving pending_bank_approval or unknown for a status that needs nobody closes it with a notice.
    const closes = (from === 'pending_bank_approval' || from === 'unknown') && !ALERTING.has(to)
    const expected = from === to ? [] : [...(closes ? [`recovery:${from}`] : []), ...ON_ENTER[to]]
    expect(step.effects.map(describeEffect)).toEqual(expected)
    expect(step.terminal).toBe(TERMINAL.has(to))
    expect(step.tracking.status).toBe(to)
  })

  it.each(['failed', 'returned', 'cancelled'] as const)(
    'carries the failureReason of a %s transfer',
    (status) => {
      const step = observeTransfer(
        trackingIn('executing'),
        { status, observedAt: at(60).toISOString(), failureReason: { message: 'Account closed' } },
        at(60),
      )
      expect(step.effects).toEqual([
        expect.objectContaining({ type: 'alert', kind: status, failureReason: 'Account closed' }),
        expect.objectContaining({
          type: 'app_event',
          event: 'transfer.failed',
          status,
          failureReason: 'Account closed',
        }),
      ])
    },
  )

  it('emits transfer.completed with the bank time it completed', () => {
    const step = observeTransfer(
      trackingIn('executing'),
      { status: 'completed', observedAt: at(90).toISOString() },
      at(120),
    )
    expect(step.effects).toEqual([
      expect.objectContaining({
        type: 'app_event',
        event: 'transfer.completed',
        transferId: TRANSFER,
        observedAt: at(90).toISOString(),
        failureReason: null,
      }),
    ])
  })

  it('gives the same ids when the same poll is replayed', () => {
    const observation = { status: 'failed' as const, observedAt: at(60).toISOString() }
    const first = observeTransfer(trackingIn('executing'), observation, at(60))
    const replay = observeTransfer(trackingIn('executing'), observation, at(600))
    expect(replay.effects.map((e) => e.id)).toEqual(first.effects.map((e) => e.id))
  })
})

describe('transfer approval reminders', () => {
  const pending = observeTransfer(
    trackingIn('executing'),
    { status: 'pending_bank_approval', observedAt: at(0).toISOString() },
    at(0),
  ).tracking

  it('reminds every reminderSeconds on the clock passed in while approval is pending', () => {
    const config = { reminderSeconds: 4 * HOUR }
    expect(tickTransfer(pending, at(4 * HOUR - 1), config).effects).toEqual([])
    const first = tickTransfer(pending, at(4 * HOUR), config)
    expect(first.effects).toEqual([expect.objectContaining({ type: 'reminder', sequence: 1 })])
    expect(tickTransfer(first.tracking, at(8 * HOUR - 1), config).effects).toEqual([])
    expect(tickTransfer(first.tracking, at(8 * HOUR), config).effects).toEqual([
      expect.objectContaining({ type: 'reminder', sequence: 2 }),
    ])
  })

  it('stops reminding once the transfer leaves pending_bank_approval', () => {
    const approved = observeTransfer(
      pending,
      { status: 'executing', observedAt: at(60).toISOString() },
      at(60),
    )
    expect(tickTransfer(approved.tracking, at(10 * HOUR), { reminderSeconds: HOUR }).effects).toEqual([])
  })

  it('does not remind about an unknown status', () => {
    expect(tickTransfer(trackingIn('unknown'), at(10 * HOUR), { reminderSeconds: HOUR }).effects).toEqual([])
  })
})

describe('transfer poll backoff', () => {
  const schedule = TransferPollSchedule.parse({ initialSeconds: 10, factor: 2, maxSeconds: 900 })

  it('doubles from the initial delay up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50, 5000].map((a) => transferPollDelaySeconds(a, schedule))).toEqual([
      10, 20, 40, 80, 160, 320, 640, 900, 900, 900,
    ])
  })

  it('never shrinks and never exceeds the cap', () => {
    fc.assert(
      fc.property(fc.nat(10_000), (attempt) => {
        const delay = transferPollDelaySeconds(attempt, schedule)
        expect(delay).toBeLessThanOrEqual(900)
        expect(delay).toBeGreaterThanOrEqual(transferPollDelaySeconds(Math.max(0, attempt - 1), schedule))
      }),
    )
  })

  it('refuses a negative or fractional attempt', () => {
    expect(() => transferPollDelaySeconds(-1, schedule)).toThrow(RangeError)
    expect(() => transferPollDelaySeconds(1.5, schedule)).toThrow(RangeError)
  })
})
