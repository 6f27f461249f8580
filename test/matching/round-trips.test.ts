import { afterAll, beforeAll, expect, it } from 'vitest'
import { silentLogger } from '../../src/observability/index.js'
import { runMatching } from '../../src/matching/index.js'
import { recordingDatabase } from '../support/recording-database.js'
import { createMatchingStore, type MatchingStore } from './matching-fixture.js'

/**
 * Every statement of a matching run is a round trip under the one matching lock, which every payment waits for
 * (docs/performance.md): a run over one payment takes one transaction and at most this many statements.
 */
const STATEMENT_BUDGET = 18

let store: MatchingStore

beforeAll(async () => {
  store = await createMatchingStore('round_trips')
})

afterAll(async () => {
  await store?.drop()
})

it('matches a payment in one transaction, within its statement budget', async () => {
  await store.invoice({ id: 'inv_rt_1', number: 'INV-7001', amount: '120.00', customerName: 'Acme GmbH' })
  await store.run()
  await store.pay({ amount: '120.00', paymentReference: 'INV-7001', counterpartyName: 'Acme GmbH' })
  const statements: string[] = []
  const db = recordingDatabase(store.pool, statements)
  const summary = await runMatching({
    db,
    lockNamespace: store.schema,
    clock: store.clock,
    logger: silentLogger,
  })
  expect(summary).toMatchObject({ drained: 1, inserted: 1, batches: 1 })
  expect(await store.events('invoice.paid')).toHaveLength(1)
  expect(statements.filter((statement) => /^begin/i.test(statement))).toHaveLength(1)
  expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(STATEMENT_BUDGET)
})
