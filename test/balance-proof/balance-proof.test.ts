import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BankCursorExpiredError,
  BankInvalidCursorError,
  createBankClient,
  type BankClient,
} from '../../src/api-client/index.js'
import { Writable } from 'node:stream'
import { createLogger } from '../../src/observability/index.js'
import {
  balanceCheckAfterSync,
  checkConnectionBalances,
  streamBalanceProof,
  type AccountProofDay,
} from '../../src/balance-proof/index.js'
import {
  refreshAccountsAndBalances,
  refreshConnection,
  rereadBalances as rereadBalancesOf,
  runConnectionSync,
} from '../../src/sync/index.js'
import { listOpenBalanceExceptions, listPersistentBalanceExceptions } from '../../src/store/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

let harness: SandboxHarness
let database: TestDatabase
let client: BankClient
let connectionId: string

beforeAll(async () => {
  harness = await startSandbox()
  database = await createTestDatabase('balance_proof')
  client = createBankClient({ baseUrl: harness.url, apiKey: harness.apiKey })
  ;({
    connection: { id: connectionId },
  } = await connectReadyBank(harness))
})

afterAll(async () => {
  await harness?.close()
  await database?.drop()
})

/** One sync run as the worker does it: the stream, then accounts and balance rows from the earliest date touched. */
async function sync(): Promise<void> {
  const result = await runConnectionSync(
    {
      db: database.db,
      client,
      clock: harness.sandbox.clock,
      isCursorExpired: (e) => e instanceof BankCursorExpiredError,
      isCursorInvalid: (e) => e instanceof BankInvalidCursorError,
    },
    connectionId,
  )
  const mirror = { db: database.db, client, clock: harness.sandbox.clock }
  await refreshConnection(mirror, connectionId)
  await refreshAccountsAndBalances(
    mirror,
    connectionId,
    result.bootstrapped ? 'all' : result.earliestPostedDate,
  )
}

async function proof(): Promise<AccountProofDay[]> {
  const days: AccountProofDay[] = []
  for await (const day of streamBalanceProof(database.db, { connectionId })) days.push(day)
  return days
}

const rereadBalances = (id: string, dateGte: string) =>
  rereadBalancesOf({ db: database.db, client }, id, dateGte)

const check = (withReread = false) =>
  checkConnectionBalances(
    { db: database.db, clock: harness.sandbox.clock, ...(withReread ? { rereadBalances } : {}) },
    connectionId,
  )

/** The check a sync's hook makes: the days from `changedFrom` on and those owed (null: only those owed). */
const checkFrom = (changedFrom: string | null) =>
  checkConnectionBalances({ db: database.db, clock: harness.sandbox.clock }, connectionId, changedFrom)

/** A posted mirrored transaction on a day the bank has a balance row for. */
async function postedRow() {
  return database.db
    .selectFrom('transactions as t')
    .innerJoin('daily_balances as b', (j) =>
      j.onRef('b.account_id', '=', 't.account_id').onRef('b.date', '=', 't.posted_date'),
    )
    .select(['t.id', 't.account_id', 't.posted_date', 't.amount'])
    .where('t.connection_id', '=', connectionId)
    .where('t.status', '=', 'posted')
    .orderBy('t.id')
    .executeTakeFirstOrThrow()
}

describe('balance proof of a mirror synced from the sandbox', () => {
  it('finds every account and day adding up, posted transactions included', async () => {
    await sync()
    const days = await proof()
    expect(days.length).toBeGreaterThan(0)
    expect(days.filter((d) => !d.ok)).toEqual([])
    expect(days.some((d) => d.mirroredPostedSum !== '0' && d.bankDelta !== '0.00')).toBe(true)
    const accounts = await database.db
      .selectFrom('accounts')
      .select('id')
      .where('connection_id', '=', connectionId)
      .execute()
    expect(new Set(days.map((d) => d.accountId))).toEqual(new Set(accounts.map((a) => a.id)))
    const result = await check()
    expect(result.problems).toEqual([])
    expect(result.daysChecked).toBe(days.length)
  })

  it('shows a tampered mirror row as a problem on its day and records an exception', async () => {
    const row = await postedRow()
    await sql`update transactions set amount = amount + 1 where id = ${row.id}`.execute(database.db)
    const failing = (await proof()).filter((d) => !d.ok)
    expect(failing.map((d) => [d.accountId, d.date, d.problemCodes])).toEqual([
      [row.account_id, row.posted_date, ['posted_sum_mismatch']],
    ])
    const result = await check()
    expect(result.problems).toHaveLength(1)
    const open = await listOpenBalanceExceptions(database.db, { connectionId })
    expect(open.map((e) => [e.account_id, e.date, e.problem, e.sync_runs_seen, e.persistent])).toEqual([
      [row.account_id, row.posted_date, 'posted_sum_mismatch', 1, false],
    ])
    expect(await listPersistentBalanceExceptions(database.db)).toEqual([])
  })

  it('flags the exception persistent when it survives the next sync', async () => {
    await sync()
    await check()
    const persistent = await listPersistentBalanceExceptions(database.db, { connectionId })
    expect(persistent.map((e) => [e.sync_runs_seen, e.persistent])).toEqual([[2, true]])
  })

  it('resolves the exception once a later sync rewrites the row and the day adds up', async () => {
    const row = await postedRow()
    const patched = await harness.request('PATCH', `/_sandbox/transactions/${row.id}`, {
      body: { description: 'corrected by the bank' },
    })
    expect(patched.status).toBe(200)
    await sync()
    const result = await check()
    expect(result.problems).toEqual([])
    expect(result.resolved).toBe(1)
    expect(await listOpenBalanceExceptions(database.db, { connectionId })).toEqual([])
    const history = await database.db
      .selectFrom('balance_exceptions')
      .select(['resolved_at', 'account_id'])
      .execute()
    expect(history).toHaveLength(1)
    expect(history[0]!.resolved_at).toBeInstanceOf(Date)
  })

  it("stays proven after a removal: the sync re-reads balances from the removed transaction's day", async () => {
    const row = await postedRow()
    expect((await harness.request('DELETE', `/_sandbox/transactions/${row.id}`)).status).toBeLessThan(300)
    await sync()
    expect((await check()).problems).toEqual([])
    expect((await proof()).filter((d) => !d.ok)).toEqual([])
  })

  it('re-reads stale balance rows before declaring an exception', async () => {
    const row = await postedRow()
    // A balance row the mirror holds from before the bank recomputed it.
    await database.db
      .updateTable('daily_balances')
      .set((eb) => ({ posted_transaction_delta: sql`${eb.ref('posted_transaction_delta')} + 1` }))
      .where('account_id', '=', row.account_id)
      .where('date', '=', row.posted_date!)
      .execute()
    const stale = await check()
    expect(stale.problems.map((d) => [d.date, d.problemCodes.includes('posted_sum_mismatch')])).toEqual([
      [row.posted_date, true],
    ])
    const reread = await check(true)
    expect(reread.reread).toBe(true)
    expect(reread.problems).toEqual([])
    expect(reread.resolved).toBe(1)
    expect((await proof()).filter((d) => !d.ok)).toEqual([])
  })

  it('waits for the next sync, neither opening nor resolving an exception, while the bank is ahead of the mirror', async () => {
    const row = await postedRow()
    const day = { accountId: row.account_id, date: row.posted_date! }
    await sql`update transactions set amount = amount + 1 where id = ${row.id}`.execute(database.db)
    const found = await check()
    expect(found.problems.map((d) => [d.accountId, d.date])).toEqual([[day.accountId, day.date]])
    const opened = await listOpenBalanceExceptions(database.db, { connectionId })
    expect(opened.map((e) => [e.account_id, e.date, e.sync_runs_seen])).toEqual([
      [day.accountId, day.date, 1],
    ])

    // The bank posts another payment on that day after the newest change the mirror holds; the mirror reads the
    // new balance row before its next sync brings the payment.
    await harness.sandbox.advance(1)
    const posted = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
      key: null,
      body: { accountId: day.accountId, amount: '12.34', status: 'posted', postedDate: day.date },
    })
    expect(posted.status).toBe(201)
    const ahead = await check(true)
    const shown = (await proof()).find((d) => d.accountId === day.accountId && d.date === day.date)
    expect([shown?.ok, shown?.awaitingSync]).toEqual([false, true])
    expect(ahead.problems).toEqual([])
    expect(ahead.unproved.map((d) => [d.accountId, d.date])).toContainEqual([day.accountId, day.date])
    expect(ahead.resolved).toBe(0)
    const kept = await listOpenBalanceExceptions(database.db, { connectionId })
    expect(kept.map((e) => [e.account_id, e.date, e.sync_runs_seen])).toEqual([[day.accountId, day.date, 1]])

    // Synced: the payment is mirrored, the day is provable again and still wrong by the tampered row.
    await sync()
    const proved = await check()
    expect(proved.unproved).toEqual([])
    expect(proved.problems.map((d) => [d.accountId, d.date])).toEqual([[day.accountId, day.date]])
    const seen = await listOpenBalanceExceptions(database.db, { connectionId })
    expect(seen.map((e) => [e.account_id, e.date, e.sync_runs_seen])).toEqual([[day.accountId, day.date, 2]])

    // The bank rewrites the tampered row with its next change; the day adds up and the exception resolves.
    await harness.request('PATCH', `/_sandbox/transactions/${row.id}`, {
      key: null,
      body: { description: 'rewritten by the bank' },
    })
    await sync()
    const clean = await check()
    expect([clean.problems, clean.unproved, clean.resolved]).toEqual([[], [], 1])
  })

  it('limits the proof to a date range and anchors its first day on the row before', async () => {
    const all = await proof()
    const middle = all[Math.floor(all.length / 2)]!
    const days: AccountProofDay[] = []
    for await (const day of streamBalanceProof(database.db, {
      connectionId,
      accountId: middle.accountId,
      dateGte: middle.date,
    })) {
      days.push(day)
    }
    expect(days[0]).toEqual(middle)
    expect(days.every((d) => d.accountId === middle.accountId && d.date >= middle.date && d.ok)).toBe(true)
  })

  it("records exceptions from the sync worker's hook, re-reading balances through the client, and logs them", async () => {
    let log = ''
    const logger = createLogger({
      level: 'warn',
      destination: new Writable({
        write(chunk, _encoding, done) {
          log += String(chunk)
          done()
        },
      }),
    })
    const hook = balanceCheckAfterSync({ db: database.db, client, clock: harness.sandbox.clock, logger })
    const row = await postedRow()
    await sql`update transactions set amount = amount - 3 where id = ${row.id}`.execute(database.db)
    const run = { bootstrapped: false, earliestPostedDate: row.posted_date }
    await hook(connectionId, run)
    const open = await listOpenBalanceExceptions(database.db, { connectionId })
    expect(open.map((e) => [e.account_id, e.date, e.problem])).toEqual([
      [row.account_id, row.posted_date, 'posted_sum_mismatch'],
    ])
    expect(log).toContain('balance proof: days that do not add up')
    await sql`update transactions set amount = amount + 3 where id = ${row.id}`.execute(database.db)
    await hook(connectionId, run)
    expect(await listOpenBalanceExceptions(database.db, { connectionId })).toEqual([])
  })

  it('after a sync proves only the days from the earliest one it changed', async () => {
    const all = await proof()
    const last = [...all].sort((a, b) => (a.date < b.date ? -1 : 1)).at(-1)!
    const scoped = await checkFrom(last.date)
    expect(scoped.from).toBe(last.date)
    expect(scoped.daysChecked).toBe(all.filter((d) => d.date >= last.date).length)
    expect(scoped.daysChecked).toBeLessThan(all.length)
    const idle = await checkFrom(null)
    expect([idle.from, idle.daysChecked]).toEqual([null, 0])
  })

  it('still proves an earlier day with an open exception, and resolves it once it adds up', async () => {
    const row = await postedRow()
    await sql`update transactions set amount = amount + 1 where id = ${row.id}`.execute(database.db)
    expect((await check()).problems).toHaveLength(1)
    await sql`update transactions set amount = amount - 1 where id = ${row.id}`.execute(database.db)
    const later = (await proof())
      .map((d) => d.date)
      .sort()
      .at(-1)!
    expect(later > row.posted_date!).toBe(true)
    const scoped = await checkFrom(later)
    expect(scoped.from).toBe(row.posted_date)
    expect(scoped.resolved).toBe(1)
    expect(await listOpenBalanceExceptions(database.db, { connectionId })).toEqual([])
  })

  it('owes a day the bank was ahead on to the next proof, even one of a sync that changed nothing', async () => {
    const row = await postedRow()
    await harness.sandbox.advance(1)
    const posted = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
      key: null,
      body: { accountId: row.account_id, amount: '7.00', status: 'posted', postedDate: row.posted_date },
    })
    expect(posted.status).toBe(201)
    await rereadBalances(connectionId, row.posted_date!)
    const ahead = await check()
    expect(ahead.unproved.map((d) => d.date)).toContain(row.posted_date)
    const owed = await checkFrom(null)
    expect(owed.from).toBe(row.posted_date)
    expect(owed.unproved.map((d) => d.date)).toContain(row.posted_date)
    await sync()
    const settled = await checkFrom(null)
    expect(settled.from).toBe(row.posted_date)
    expect([settled.problems, settled.unproved]).toEqual([[], []])
    const nothingOwed = await checkFrom(null)
    expect([nothingOwed.from, nothingOwed.daysChecked]).toEqual([null, 0])
  })

  it('owes the days a synced page changed to the next proof, however long it is put off', async () => {
    const row = await postedRow()
    await harness.sandbox.advance(1)
    const posted = await harness.request('POST', `/_sandbox/connections/${connectionId}/transactions`, {
      key: null,
      body: { accountId: row.account_id, amount: '3.00', status: 'posted', postedDate: row.posted_date },
    })
    expect(posted.status).toBe(201)
    await sync()
    const due = await database.db.selectFrom('balance_proof_due').selectAll().execute()
    expect(due.map((d) => [d.connection_id, String(d.due_from)])).toEqual([[connectionId, row.posted_date]])
    const owed = await checkFrom(null)
    expect(owed.from).toBe(row.posted_date)
    expect([owed.problems, owed.unproved]).toEqual([[], []])
    expect(await database.db.selectFrom('balance_proof_due').selectAll().execute()).toEqual([])
  })
})
