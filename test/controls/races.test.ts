import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startControlledSidecar, type Controlled } from './controls-fixture.js'

/**
 * Faults of the approval policy's routes: requests at the same moment. The policy counts inside the writing
 * transaction after one lock, so parallel parts of a split are counted together, and one decision wins.
 */
let s: Controlled
beforeAll(async () => {
  s = await startControlledSidecar('sod_races')
  s.tokens.abe = (await s.call('admin', 'POST', '/api/users', { name: 'abe', role: 'approver' })).body.token
})
afterAll(async () => {
  await s?.close()
})

describe('at the same moment', () => {
  it('parallel parts of a split never get under the threshold together', async () => {
    await s.invoice('race-1', '3000.00')
    await s.invoice('race-2', '3000.00', 'c-beta')
    const answers = await Promise.all(
      ['race-1', 'race-2', 'race-1', 'race-2', 'race-1', 'race-2'].map((id) =>
        s.call('carl', 'POST', `/api/invoices/${id}/write-off`, { reason: 'bad_debt', amount: '300' }),
      ),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([201, 202, 202, 202, 202, 202])
    for (const n of ['a', 'b', 'c']) await s.invoice(`race-4${n}`, '3000.00', 'c-beta')
    // Three invoices: only the controls lock keeps one maker's parallel notes from all counting nothing yet.
    const credit = await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        s.call('cleo', 'PUT', `/api/credit-notes/race-${n}`, {
          number: `CN-RACE-${n}`,
          amount: '200.00',
          currency: 'USD',
          invoiceId: `race-4${n}`,
        }),
      ),
    )
    expect(credit.map((a) => a.status).sort()).toEqual([201, 201, 202])
  })

  it('two approvers approving one credit note at once: one approves it, the other is told it is decided', async () => {
    await s.invoice('race-3', '2000.00')
    const made = await s.call('carl', 'PUT', '/api/credit-notes/race-big', {
      number: 'CN-RACE-BIG',
      amount: '1500.00',
      currency: 'USD',
      invoiceId: 'race-3',
    })
    expect(made.status).toBe(202)
    const decisions = await Promise.all(
      ['april', 'abe'].map((who) => s.call(who, 'POST', '/api/credit-notes/race-big/approve')),
    )
    expect(decisions.map((d) => d.status).sort()).toEqual([200, 409])
    expect((await s.audit('credit_note', 'race-big')).map((e) => e.action)).toEqual([
      'credit_note.requested',
      'credit_note.approved',
    ])
    expect(await s.invoiceState('race-3')).toMatchObject({ amountCredited: '1500.00' })
  })
})
