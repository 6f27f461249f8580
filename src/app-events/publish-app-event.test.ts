import { describe, expect, it } from 'vitest'
import { stableEventId } from './publish-app-event.js'

describe('stableEventId', () => {
  it('is the same for the same fact and differs for another', () => {
    expect(stableEventId('a', 'b')).toBe(stableEventId('a', 'b'))
    expect(stableEventId('a', 'b')).not.toBe(stableEventId('ab', ''))
  })
})
