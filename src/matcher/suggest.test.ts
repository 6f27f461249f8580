import { describe, expect, it } from 'vitest'
import { matchConfig } from './config.js'
import { toUnits } from './money.js'
import { suggestMatch, suggestionKey, type SuggestionCandidate } from './suggest.js'

const candidate = (id: string, available: string, issueDate: string): SuggestionCandidate => ({
  invoice: { id, number: `N-${id}`, amount: available, currency: 'EUR', issueDate },
  available: toUnits(available),
})
const config = matchConfig()

describe('suggestMatch', () => {
  it('scores a unique single invoice higher than a set, and explains both', () => {
    const single = suggestMatch({
      transactionId: 't',
      amount: toUnits('50'),
      candidates: [candidate('a', '50', '2024-01-01'), candidate('b', '20', '2024-01-02')],
      config,
    })
    expect(single).toMatchObject({ invoiceIds: ['a'], confidence: 80 })
    expect(single?.reasons.join(' ')).toContain('N-a')
    const pair = suggestMatch({
      transactionId: 't',
      amount: toUnits('70'),
      candidates: [candidate('a', '50', '2024-01-01'), candidate('b', '20', '2024-01-02')],
      config,
    })
    expect(pair).toMatchObject({ invoiceIds: ['a', 'b'], confidence: 70 })
  })

  it('searches only the oldest suggestionCandidateLimit invoices', () => {
    const candidates = [candidate('new', '30', '2024-06-01'), candidate('old', '10', '2024-01-01')]
    const limited = matchConfig({ suggestionCandidateLimit: 1 })
    expect(
      suggestMatch({ transactionId: 't', amount: toUnits('30'), candidates, config: limited }),
    ).toBeNull()
    expect(
      suggestMatch({ transactionId: 't', amount: toUnits('10'), candidates, config: limited }),
    ).toMatchObject({
      invoiceIds: ['old'],
    })
  })

  it('skips a set rejected for this transaction only', () => {
    const candidates = [candidate('a', '30', '2024-01-01')]
    const rejected = new Set([suggestionKey('t', ['a'])])
    expect(
      suggestMatch({ transactionId: 't', amount: toUnits('30'), candidates, config, rejected }),
    ).toBeNull()
    expect(
      suggestMatch({ transactionId: 'u', amount: toUnits('30'), candidates, config, rejected }),
    ).not.toBeNull()
  })

  it('ignores candidates with nothing open', () => {
    expect(
      suggestMatch({
        transactionId: 't',
        amount: toUnits('0.01'),
        candidates: [candidate('a', '0', '2024-01-01')],
        config,
      }),
    ).toBeNull()
  })
})
