import { describe, expect, it } from 'vitest'
import { ageNumber, compareAge } from './invoice-age.js'
import { sortByAge } from './sort-by-age.js'
import type { MatchInvoice } from './types.js'

function invoice(id: string, issueDate: string | null, dueDate: string | null = null): MatchInvoice {
  return { id, number: id, amount: '1', currency: 'EUR', issueDate, dueDate }
}

describe('sortByAge', () => {
  it('reads only YYYY-MM-DD as a number', () => {
    expect(ageNumber('2024-03-15')).toBe(20240315)
    expect(ageNumber('2024-3-15')).toBe(-1)
    expect(ageNumber('2024-03-15T00:00')).toBe(-1)
    expect(ageNumber('\uffff')).toBe(-1)
  })

  it('sorts as compareAge does, dates in any form and ties by id', () => {
    const dates = ['2024-03-15', '2024-03-05', '2023-12-31', '2024-3-5', '15.03.2024', null]
    const invoices: MatchInvoice[] = []
    for (let at = 0; at < 60; at++) {
      const issued = dates[(at * 7) % dates.length] as string | null
      invoices.push(invoice(`inv_${(at * 37) % 60}`, issued, at % 5 === 0 ? '2024-01-01' : null))
    }
    const expected = [...invoices].sort(compareAge)
    expect(sortByAge(invoices, (item) => item)).toEqual(expected)
  })
})
