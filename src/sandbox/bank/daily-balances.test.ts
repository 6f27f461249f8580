import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dailyBalances, formatAmount, pendingTotal, type BalanceAccount } from './daily-balances.js'

const account: BalanceAccount = {
  id: '00000000-0000-4000-8000-000000000001',
  connectionId: '00000000-0000-4000-8000-000000000002',
  entityId: '00000000-0000-4000-8000-000000000003',
  currency: 'USD',
  openingBalance: '1000.00',
  openingDate: '2026-03-01',
  reportsBalances: true,
  createdAt: '2026-03-01T08:00:00.000Z',
}

const tx = (postedDate: string, amount: string, extra: Record<string, unknown> = {}) => ({
  status: 'posted' as const,
  postedDate,
  amount,
  currency: 'USD',
  updatedAt: '2026-03-03T10:00:00.000Z',
  ...extra,
})

describe('dailyBalances', () => {
  it('gives one row per day from the opening date to today, oldest first', () => {
    const rows = dailyBalances(account, [], '2026-03-04')
    expect(rows.map((r) => r.date)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'])
    expect(rows.every((r) => r.ledgerBalance === '1000.00' && r.postedTransactionDelta === '0.00')).toBe(true)
  })

  it('adds posted amounts cumulatively and reports each day’s posted delta', () => {
    const rows = dailyBalances(
      account,
      [tx('2026-03-02', '250.10'), tx('2026-03-02', '-50.00'), tx('2026-03-03', '-0.10')],
      '2026-03-03',
    )
    expect(rows.map((r) => [r.date, r.ledgerBalance, r.postedTransactionDelta])).toEqual([
      ['2026-03-01', '1000.00', '0.00'],
      ['2026-03-02', '1200.10', '200.10'],
      ['2026-03-03', '1200.00', '-0.10'],
    ])
  })

  it('excludes pending transactions from the ledger and the delta', () => {
    const rows = dailyBalances(account, [tx('2026-03-02', '-75.00', { status: 'pending' })], '2026-03-02')
    expect(rows.at(-1)).toMatchObject({ ledgerBalance: '1000.00', postedTransactionDelta: '0.00' })
  })

  it('excludes lines in another currency and lines dated after today', () => {
    const rows = dailyBalances(
      account,
      [tx('2026-03-02', '10.00', { currency: 'EUR' }), tx('2026-03-09', '10.00')],
      '2026-03-02',
    )
    expect(rows.at(-1)!.ledgerBalance).toBe('1000.00')
    expect(rows.at(-1)!.date).toBe('2026-03-02')
  })

  it('starts at an earlier posted line so the rows stay consistent', () => {
    const rows = dailyBalances(account, [tx('2026-02-27', '5.00')], '2026-03-01')
    expect(rows.map((r) => [r.date, r.ledgerBalance])).toEqual([
      ['2026-02-27', '1005.00'],
      ['2026-02-28', '1005.00'],
      ['2026-03-01', '1005.00'],
    ])
  })

  it('marks rows bank when the bank reports balances and derived otherwise', () => {
    expect(dailyBalances(account, [], '2026-03-01')[0]!.source).toBe('bank')
    expect(dailyBalances({ ...account, reportsBalances: false }, [], '2026-03-01')[0]!.source).toBe('derived')
  })

  it('stamps each row with the latest change of a posted line on or before its date, else the account creation', () => {
    const rows = dailyBalances(
      account,
      [
        tx('2026-03-02', '1.00', { updatedAt: '2026-03-05T00:00:00.000Z' }),
        tx('2026-03-03', '1.00', { updatedAt: '2026-03-04T00:00:00.000Z' }),
        tx('2026-03-03', '1.00', { status: 'pending', updatedAt: '2026-03-09T00:00:00.000Z' }),
      ],
      '2026-03-03',
    )
    expect(rows.map((r) => r.updatedAt)).toEqual([
      '2026-03-01T08:00:00.000Z',
      '2026-03-05T00:00:00.000Z',
      '2026-03-05T00:00:00.000Z',
    ])
  })

  it('keeps consecutive rows apart by exactly the later row’s delta (property)', () => {
    const amount = fc
      .integer({ min: -1_000_000, max: 1_000_000 })
      .map((c) => new Decimal(c).div(100).toFixed(2))
    const line = fc.record({
      day: fc.integer({ min: 1, max: 28 }),
      amount,
      status: fc.constantFrom('posted' as const, 'pending' as const),
    })
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const rows = dailyBalances(
          { ...account, openingDate: '2026-02-01' },
          lines.map((l) => tx(`2026-02-${String(l.day).padStart(2, '0')}`, l.amount, { status: l.status })),
          '2026-02-28',
        )
        for (let i = 1; i < rows.length; i++) {
          const step = new Decimal(rows[i]!.ledgerBalance).minus(rows[i - 1]!.ledgerBalance)
          expect(step.equals(rows[i]!.postedTransactionDelta)).toBe(true)
        }
        const posted = lines
          .filter((l) => l.status === 'posted')
          .reduce((s, l) => s.plus(l.amount), new Decimal(0))
        expect(new Decimal(rows.at(-1)!.ledgerBalance).equals(posted.plus(account.openingBalance))).toBe(true)
      }),
    )
  })
})

describe('pendingTotal and formatAmount', () => {
  it('sums pending lines in the account currency only', () => {
    const total = pendingTotal(account, [
      tx('2026-03-01', '-10.00', { status: 'pending' }),
      tx('2026-03-01', '-5.50', { status: 'pending' }),
      tx('2026-03-01', '-99.00'),
      tx('2026-03-01', '-7.00', { status: 'pending', currency: 'EUR' }),
    ])
    expect(total.toFixed(2)).toBe('-15.50')
  })

  it('keeps two decimals, more only when the amount has more', () => {
    expect(formatAmount(new Decimal('12'))).toBe('12.00')
    expect(formatAmount(new Decimal('-0.125'))).toBe('-0.125')
  })
})
