import { describe, expect, it } from 'vitest'
import { chartAccount, DEFAULT_LEDGER_CHART, ledgerChartOf, parseLedgerChart } from './ledger-chart.js'

describe('the chart of accounts', () => {
  it('reads ACCOUNT:KIND items, the kind after the last colon, and names each bad item', () => {
    expect(parseLedgerChart('6800:write_off, 1590 Suspense:clearing,GL:2890:refund')).toEqual({
      chart: [
        { account: '6800', kind: 'write_off' },
        { account: '1590 Suspense', kind: 'clearing' },
        { account: 'GL:2890', kind: 'refund' },
      ],
      problems: [],
    })
    expect(parseLedgerChart('6800,1590:suspense,6800:write_off,6800:ignore').problems).toEqual([
      expect.stringContaining('"6800": must be ACCOUNT:KIND'),
      expect.stringContaining('"1590:suspense": the kind must be one of'),
      expect.stringContaining('"6800:ignore": 6800 is given twice'),
    ])
  })

  it('keeps the defaults and the configured write-off accounts when LEDGER_ACCOUNTS is unset', () => {
    const chart = ledgerChartOf(undefined, {
      account: '6800',
      byReason: { credit_note: '4100', discount: '4900' },
    })
    expect(chart.slice(0, DEFAULT_LEDGER_CHART.length)).toEqual(DEFAULT_LEDGER_CHART)
    expect(chartAccount(chart, 'credit_note', undefined)).toEqual({ ok: true, account: '4100' })
    expect(chartAccount(chart, 'write_off', '4900')).toEqual({ ok: true, account: '4900' })
    expect(chartAccount(chart, 'ignore', undefined)).toEqual({ ok: true, account: 'Not receivables' })
  })

  it('refuses an account of another kind, naming the configured ones', () => {
    const chart = ledgerChartOf(parseLedgerChart('6800:write_off,8990:ignore').chart, {
      account: '6800',
      byReason: {},
    })
    const refused = chartAccount(chart, 'ignore', 'Write-offs')
    expect(refused).toEqual({ ok: false, message: expect.stringContaining('configured: "8990"') })
    expect(chartAccount(chart, 'refund', undefined)).toEqual({
      ok: false,
      message: 'no refund account is configured (LEDGER_ACCOUNTS)',
    })
  })
})
