import { describe, expect, it } from 'vitest'
import { createVirtualClock } from '../../clock/index.js'
import { createFailureThrottle } from './failure-throttle.js'

const setup = (maxClients?: number) => {
  const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })
  const throttle = createFailureThrottle({ burst: 3, refillMs: 6000, clock, maxClients })
  return { clock, throttle }
}

describe('the failed-attempt throttle', () => {
  it('lets a client fail the burst, then refuses it until a token comes back', () => {
    const { clock, throttle } = setup()
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfterMs('10.0.0.1')).toBe(0)
      throttle.fail('10.0.0.1')
    }
    expect(throttle.retryAfterMs('10.0.0.1')).toBe(6000)
    clock.advance(4)
    expect(throttle.retryAfterMs('10.0.0.1')).toBe(2000)
    clock.advance(2)
    expect(throttle.retryAfterMs('10.0.0.1')).toBe(0)
    throttle.fail('10.0.0.1')
    expect(throttle.retryAfterMs('10.0.0.1')).toBe(6000)
  })

  it('keeps clients apart: one client’s failures never refuse another', () => {
    const { throttle } = setup()
    for (let i = 0; i < 10; i++) throttle.fail('10.0.0.1')
    expect(throttle.retryAfterMs('10.0.0.1')).toBeGreaterThan(0)
    expect(throttle.retryAfterMs('10.0.0.2')).toBe(0)
  })

  it('refills to the burst and no further', () => {
    const { clock, throttle } = setup()
    throttle.fail('c')
    clock.advance(3600)
    for (let i = 0; i < 3; i++) throttle.fail('c')
    expect(throttle.retryAfterMs('c')).toBe(6000)
  })

  it('forgets the least recently failing client first when it holds too many', () => {
    const { throttle } = setup(2)
    for (const client of ['a', 'b', 'a', 'c']) for (let i = 0; i < 3; i++) throttle.fail(client)
    expect(throttle.retryAfterMs('a')).toBeGreaterThan(0)
    expect(throttle.retryAfterMs('c')).toBeGreaterThan(0)
    expect(throttle.retryAfterMs('b')).toBe(0)
  })
})
