import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAccountProver, proveAccountDays, type ProofDayInput } from './prove-account-days.js'
import { sumPostedByDay } from './sum-posted-by-day.js'

const ACCOUNT = '22222222-2222-4222-8222-222222222222'

function day(
  date: string,
  mirrored: string | null,
  delta: string | null,
  ledger: string | null,
): ProofDayInput {
  return { date, mirroredPostedSum: mirrored, bankDelta: delta, ledgerBalance: ledger }
}

describe('proveAccountDays', () => {
  it('passes days whose posted sum equals the delta and whose ledger moves by it', () => {
    const proof = proveAccountDays(ACCOUNT, [
      day('2026-03-01', '10.00', '10.00', '110.00'),
      day('2026-03-02', null, '0.00', '110.00'),
      day('2026-03-03', '-0.5', '-0.50', '109.50'),
    ])
    expect(proof.map((d) => d.ok)).toEqual([true, true, true])
    expect(proof[1]).toEqual({
      accountId: ACCOUNT,
      date: '2026-03-02',
      mirroredPostedSum: '0',
      bankDelta: '0.00',
      ledgerBalance: '110.00',
      previousLedgerBalance: '110.00',
      ok: true,
      problem: null,
      problemCodes: [],
    })
    expect(proof[0]!.previousLedgerBalance).toBeNull()
  })

  it('flags a day whose mirrored posted sum differs from postedTransactionDelta, with the difference', () => {
    const [result] = proveAccountDays(ACCOUNT, [day('2026-03-01', '12.50', '15.00', '115.00')])
    expect(result!.ok).toBe(false)
    expect(result!.problemCodes).toEqual(['posted_sum_mismatch'])
    expect(result!.problem).toContain('difference -2.5')
  })

  it('flags a ledger balance that does not follow from the previous row and the day delta', () => {
    const proof = proveAccountDays(ACCOUNT, [
      day('2026-03-01', '10.00', '10.00', '110.00'),
      day('2026-03-02', '5.00', '5.00', '116.00'),
    ])
    expect(proof[1]!.problemCodes).toEqual(['ledger_discontinuity'])
    expect(proof[1]!.previousLedgerBalance).toBe('110.00')
  })

  it('anchors the first day on the balance row before the range', () => {
    const [ok] = proveAccountDays(ACCOUNT, [day('2026-03-05', '1.00', '1.00', '51.00')], {
      date: '2026-03-04',
      ledgerBalance: '50.00',
    })
    expect(ok!.ok).toBe(true)
    const [broken] = proveAccountDays(ACCOUNT, [day('2026-03-05', '1.00', '1.00', '51.00')], {
      date: '2026-03-04',
      ledgerBalance: '49.00',
    })
    expect(broken!.problemCodes).toEqual(['ledger_discontinuity'])
  })

  it('flags mirrored posted transactions on a day the bank has no balance row for', () => {
    const proof = proveAccountDays(ACCOUNT, [
      day('2026-03-01', '10.00', '10.00', '110.00'),
      day('2026-03-02', '3.00', null, null),
      day('2026-03-03', '0', '0', '110.00'),
    ])
    expect(proof.map((d) => d.problemCodes)).toEqual([[], ['missing_balance_row'], []])
    // The continuity check skips the missing day and compares with the last row the bank gave.
    expect(proof[2]!.previousLedgerBalance).toBe('110.00')
  })

  it('compares amounts exactly, beyond the precision of floats and of decimal.js defaults', () => {
    const big = '123456789012345678.000000000000000001'
    const proof = proveAccountDays(ACCOUNT, [
      day('2026-03-01', big, big, big),
      day(
        '2026-03-02',
        '0.000000000000000001',
        '0.000000000000000001',
        '123456789012345678.000000000000000002',
      ),
    ])
    expect(proof.every((d) => d.ok)).toBe(true)
    const [off] = proveAccountDays(ACCOUNT, [day('2026-03-01', big, '123456789012345678', big)])
    expect(off!.ok).toBe(false)
  })

  it('refuses days out of date order', () => {
    const prover = createAccountProver(ACCOUNT)
    prover.prove(day('2026-03-02', null, '0', '0'))
    expect(() => prover.prove(day('2026-03-01', null, '0', '0'))).toThrow(RangeError)
  })
})

describe('sumPostedByDay', () => {
  it('sums posted lines per date in the account currency and leaves out pending and foreign lines', () => {
    const sums = sumPostedByDay(
      [
        { status: 'posted', postedDate: '2026-03-02', amount: '0.10', currency: 'USD' },
        { status: 'posted', postedDate: '2026-03-02', amount: '0.20', currency: 'USD' },
        { status: 'pending', postedDate: '2026-03-02', amount: '5.00', currency: 'USD' },
        { status: 'posted', postedDate: '2026-03-02', amount: '7.00', currency: 'EUR' },
        { status: 'posted', postedDate: '2026-03-01', amount: '-1', currency: null },
      ],
      'USD',
    )
    expect([...sums]).toEqual([
      ['2026-03-01', '-1'],
      ['2026-03-02', '0.3'],
    ])
  })
})

/** A bank that projects balance rows from its transactions, written independently of the prover. */
function bankRows(opening: bigint, cents: Map<number, bigint[]>, days: number) {
  const rows: ProofDayInput[] = []
  let ledger = opening
  for (let d = 1; d <= days; d++) {
    const delta = (cents.get(d) ?? []).reduce((a, b) => a + b, 0n)
    ledger += delta
    const date = `2026-01-${String(d).padStart(2, '0')}`
    rows.push({ date, mirroredPostedSum: null, bankDelta: money(delta), ledgerBalance: money(ledger) })
  }
  return rows
}

function money(cents: bigint): string {
  return new Decimal(cents.toString()).dividedBy(100).toFixed(2)
}

const ledgerArbitrary = fc.record({
  opening: fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }),
  lines: fc.array(
    fc.record({
      day: fc.integer({ min: 1, max: 28 }),
      cents: fc.bigInt({ min: -(10n ** 10n), max: 10n ** 10n }),
    }),
    { maxLength: 60 },
  ),
})

function mirrorOf(lines: { day: number; cents: bigint }[]) {
  return lines.map((l) => ({
    status: 'posted',
    postedDate: `2026-01-${String(l.day).padStart(2, '0')}`,
    amount: money(l.cents),
    currency: 'USD',
  }))
}

function withMirror(rows: ProofDayInput[], sums: Map<string, string>): ProofDayInput[] {
  return rows.map((row) => ({ ...row, mirroredPostedSum: sums.get(row.date) ?? null }))
}

describe('the balance proof, for any ledger', () => {
  it('finds every day adding up when the mirror holds exactly the bank transactions', () => {
    fc.assert(
      fc.property(ledgerArbitrary, ({ opening, lines }) => {
        const byDay = new Map<number, bigint[]>()
        for (const l of lines) byDay.set(l.day, [...(byDay.get(l.day) ?? []), l.cents])
        const rows = withMirror(bankRows(opening, byDay, 28), sumPostedByDay(mirrorOf(lines), 'USD'))
        expect(proveAccountDays(ACCOUNT, rows).filter((d) => !d.ok)).toEqual([])
      }),
    )
  })

  it('finds exactly the day of a mirrored line whose amount was changed', () => {
    fc.assert(
      fc.property(
        ledgerArbitrary.filter((l) => l.lines.length > 0),
        fc.nat(),
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        ({ opening, lines }, pick, change) => {
          const byDay = new Map<number, bigint[]>()
          for (const l of lines) byDay.set(l.day, [...(byDay.get(l.day) ?? []), l.cents])
          const tampered = lines.map((l, i) =>
            i === pick % lines.length ? { ...l, cents: l.cents + change } : l,
          )
          const rows = withMirror(bankRows(opening, byDay, 28), sumPostedByDay(mirrorOf(tampered), 'USD'))
          const failing = proveAccountDays(ACCOUNT, rows).filter((d) => !d.ok)
          const tamperedDay = `2026-01-${String(lines[pick % lines.length]!.day).padStart(2, '0')}`
          expect(failing.map((d) => [d.date, d.problemCodes])).toEqual([
            [tamperedDay, ['posted_sum_mismatch']],
          ])
        },
      ),
    )
  })

  it('finds the day whose ledger balance row was changed, and the day after it', () => {
    fc.assert(
      fc.property(ledgerArbitrary, fc.integer({ min: 2, max: 27 }), ({ opening, lines }, target) => {
        const byDay = new Map<number, bigint[]>()
        for (const l of lines) byDay.set(l.day, [...(byDay.get(l.day) ?? []), l.cents])
        const rows = withMirror(bankRows(opening, byDay, 28), sumPostedByDay(mirrorOf(lines), 'USD'))
        const row = rows[target - 1]!
        row.ledgerBalance = new Decimal(row.ledgerBalance!).plus('0.01').toFixed(2)
        const failing = proveAccountDays(ACCOUNT, rows).filter((d) => !d.ok)
        expect(failing.map((d) => d.date)).toEqual([rows[target - 1]!.date, rows[target]!.date])
        expect(failing.every((d) => d.problemCodes.join() === 'ledger_discontinuity')).toBe(true)
      }),
    )
  })
})
