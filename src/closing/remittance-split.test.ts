import { Decimal } from 'decimal.js'
import { describe, expect, it } from 'vitest'
import { splitRemittance, type AdviceLine } from './remittance-split.js'

const line = (n: number, amount: string, open = amount): AdviceLine => ({
  line: n,
  invoiceId: `inv-${n}`,
  invoiceNumber: `INV-${n}`,
  amount: new Decimal(amount),
  open: new Decimal(open),
})
const within5 = (difference: Decimal) => difference.lte(5)
const plain = (split: ReturnType<typeof splitRemittance>) =>
  split.ok
    ? split.matches.map((m) => [m.invoiceId, m.amount.toFixed(), m.writeOff?.toFixed() ?? null])
    : split.difference.toFixed()

describe('splitRemittance', () => {
  it('puts the fee on the largest line that pays its invoice in full', () => {
    const split = splitRemittance(
      [line(1, '300.00'), line(2, '500.00', '600.00'), line(3, '400.00')],
      new Decimal('15'),
      new Decimal('1185'),
      within5,
    )
    expect(plain(split)).toEqual([
      ['inv-1', '300', null],
      ['inv-2', '500', null],
      ['inv-3', '385', '15'],
    ])
  })

  it('writes the difference within tolerance off with the fee, and refuses beyond it or above the advice', () => {
    expect(splitRemittance([line(1, '100')], new Decimal(2), new Decimal(95), within5)).toMatchObject({
      ok: true,
      writeOff: new Decimal(5),
      difference: new Decimal(3),
    })
    expect(plain(splitRemittance([line(1, '100')], new Decimal(0), new Decimal(90), within5))).toBe('10')
    expect(plain(splitRemittance([line(1, '100')], new Decimal(0), new Decimal(101), () => true))).toBe('-1')
  })

  it('refuses a write-off no line can carry: none pays its invoice in full', () => {
    const split = splitRemittance([line(1, '100', '200')], new Decimal(4), new Decimal(96), within5)
    expect(split).toMatchObject({ ok: false, why: expect.stringContaining('in full') })
  })
})
