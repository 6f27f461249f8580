import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { Transaction, type Rail } from '../../api-client/index.js'
import { createRandom } from '../random.js'
import { generateDayActivity } from './generate-activity.js'
import { datesBetween, isWeekend } from './iso-date.js'
import { MAX_SYNC_GAP_DAYS, planHistory, planSync } from './plan-sync.js'

const ACC_USD = '00000000-0000-4000-8000-000000000001'
const ACC_GBP = '00000000-0000-4000-8000-000000000002'
const ACC_CARD = '00000000-0000-4000-8000-000000000003'
const CONN = '00000000-0000-4000-8000-00000000000c'
const checking = { id: ACC_USD, connectionId: CONN, type: 'checking' as const, currency: 'USD' }
const sterling = { id: ACC_GBP, connectionId: CONN, type: 'checking' as const, currency: 'GBP' }
const card = { id: ACC_CARD, connectionId: CONN, type: 'creditCard' as const, currency: 'USD' }
const accounts = [checking, sterling, card]
const stamp = <T extends object>(t: T) => ({ ...t, updatedAt: '2026-03-02T09:00:00.000Z' })

describe('planHistory', () => {
  const history = planHistory(createRandom(1), accounts, '2026-01-01', '2026-03-02')

  it('covers the days from the opening date to today with valid transactions', () => {
    expect(history.length).toBeGreaterThan(100)
    for (const t of history) expect(Transaction.safeParse(stamp(t)).success).toBe(true)
    const dates = history.map((t) => t.postedDate!)
    expect(dates.every((d) => d >= '2026-01-01' && d <= '2026-03-02')).toBe(true)
  })

  it('leaves only lines of the last two days pending', () => {
    const pending = history.filter((t) => t.status === 'pending')
    expect(pending.length).toBeGreaterThan(0)
    expect(pending.every((t) => t.postedDate! >= '2026-03-01')).toBe(true)
  })

  it('signs amounts by direction: credits positive, debits negative, in the account currency', () => {
    for (const t of history) {
      expect(new Decimal(t.amount!).isNegative()).toBe(t.entryType === 'debit')
      expect(t.currency).toBe(accounts.find((a) => a.id === t.accountId)!.currency)
    }
  })

  it('uses rails that fit the currency', () => {
    const rails = (id: string) => new Set(history.filter((t) => t.accountId === id).map((t) => t.rail))
    expect(
      [...rails(ACC_GBP)].every((r) => ['fasterPayments', 'bacsDirectDebit', 'other'].includes(r!)),
    ).toBe(true)
    expect(rails(ACC_USD).has('ach')).toBe(true)
    expect([...rails(ACC_CARD)].every((r) => r === 'card' || r === 'ach')).toBe(true)
  })

  it('carries invoice numbers as payment references on incoming customer payments', () => {
    const incoming = history.filter((t) => t.subcategory === 'customerPayment')
    expect(incoming.length).toBeGreaterThan(0)
    expect(incoming.every((t) => /^INV-\d{4}-\d{4}$/.test(t.paymentReference!))).toBe(true)
  })
})

describe('generateDayActivity', () => {
  it('keeps batch rails quiet at weekends', () => {
    const random = createRandom(9)
    const batch = ['ach', 'wire', 'check', 'sepaCredit', 'sepaDebit', 'fasterPayments', 'bacsDirectDebit']
    for (const date of datesBetween('2026-01-01', '2026-03-31').filter(isWeekend)) {
      for (const account of [checking, sterling]) {
        const lines = generateDayActivity(random, account, date, { pendingChance: 0 })
        expect(lines.filter((t) => batch.includes(t.rail!))).toEqual([])
      }
    }
  })
})

describe('balance-aware activity', () => {
  const weekdays = datesBetween('2026-02-02', '2026-02-27').filter(
    (d) => !isWeekend(d) && !['01', '15', '28'].includes(d.slice(8)),
  )

  it('draws only inflows for a checking account running low, only outflows for one running high', () => {
    const random = createRandom(3)
    for (const date of weekdays) {
      const low = generateDayActivity(random, checking, date, {
        pendingChance: 0,
        balance: new Decimal(1_000),
      })
      expect(low.every((t) => new Decimal(t.amount!).isPositive())).toBe(true)
      const high = generateDayActivity(random, checking, date, {
        pendingChance: 0,
        balance: new Decimal(5_000_000),
      })
      expect(high.every((t) => new Decimal(t.amount!).isNegative())).toBe(true)
    }
  })

  it('pays the whole card balance on the 5th when it is known', () => {
    const lines = generateDayActivity(createRandom(3), card, '2026-02-05', {
      pendingChance: 0,
      balance: new Decimal('-1234.56'),
    })
    expect(lines.filter((t) => t.subcategory === 'cardPayment').map((t) => t.amount)).toEqual(['1234.56'])
  })
})

describe('planSync', () => {
  const pending = (id: string, postedDate: string, rail: Rail = 'ach'): Transaction =>
    stamp({
      id: `00000000-0000-4000-8000-${id.padStart(12, '0')}`,
      connectionId: CONN,
      accountId: ACC_USD,
      postedDate,
      amount: '-10.00',
      status: 'pending',
      rail,
    })

  it('settles pending lines from before today (dated the day after authorisation) or voids a few', () => {
    const transactions = Array.from({ length: 50 }, (_, i) => pending(String(i + 1), '2026-03-01'))
    const plan = planSync(createRandom(2), {
      accounts,
      transactions,
      lastSyncDate: '2026-03-01',
      today: '2026-03-03',
    })
    const settled = plan.changed.filter((c) => c.changes.status === 'posted')
    expect(settled.length + plan.removed.length).toBe(50)
    expect(plan.removed.length).toBeGreaterThan(0)
    expect(settled.every((c) => c.changes.postedDate === '2026-03-02')).toBe(true)
  })

  it('leaves lines authorised today pending', () => {
    const plan = planSync(createRandom(2), {
      accounts,
      transactions: [pending('999', '2026-03-03')],
      lastSyncDate: '2026-03-03',
      today: '2026-03-03',
    })
    expect(plan.changed.find((c) => c.id.endsWith('999'))).toBeUndefined()
    expect(plan.removed).toEqual([])
  })

  it('adds activity for every day since the previous sync, and only those', () => {
    const plan = planSync(createRandom(4), {
      accounts,
      transactions: [],
      lastSyncDate: '2026-02-20',
      today: '2026-03-02',
    })
    const dates = new Set(plan.added.map((t) => t.postedDate))
    expect([...dates].every((d) => d! > '2026-02-20' && d! <= '2026-03-02')).toBe(true)
    expect(dates.size).toBeGreaterThan(5)
  })

  it('backfills at most MAX_SYNC_GAP_DAYS after a long silence', () => {
    const plan = planSync(createRandom(4), {
      accounts,
      transactions: [],
      lastSyncDate: '2020-01-01',
      today: '2026-03-02',
    })
    const earliest = plan.added.map((t) => t.postedDate!).sort()[0]!
    expect(earliest >= datesBetween('2025-01-01', '2026-03-02').at(-MAX_SYNC_GAP_DAYS)!).toBe(true)
  })

  it('is deterministic for a seed', () => {
    const input = {
      accounts,
      transactions: [pending('77', '2026-03-01')],
      lastSyncDate: '2026-03-01',
      today: '2026-03-02',
    }
    expect(planSync(createRandom(8), input)).toEqual(planSync(createRandom(8), input))
  })
})
