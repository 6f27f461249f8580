import { describe, expect, it } from 'vitest'
import { validateInvoice } from './invoice-input.js'

const valid = { id: 'inv_1', number: 'INV-1001', amount: '120.50', currency: 'EUR' }

function problemsOf(value: unknown): Record<string, string> {
  const result = validateInvoice(value)
  if (result.ok) throw new Error('expected problems')
  return Object.fromEntries(result.problems.map((problem) => [problem.field, problem.message]))
}

describe('validateInvoice', () => {
  it('accepts the four required fields and fills the optional ones with null or []', () => {
    expect(validateInvoice(valid)).toEqual({
      ok: true,
      invoice: {
        ...valid,
        customerName: null,
        customerAliases: [],
        issueDate: null,
        dueDate: null,
        entityId: null,
        accountId: null,
        metadata: null,
        customerId: null,
        paymentReference: null,
        earlyPaymentDiscount: null,
      },
    })
  })

  it('keeps early-payment discount terms as given', () => {
    const result = validateInvoice({
      ...valid,
      earlyPaymentDiscount: { percent: '2.5', until: '2026-03-10' },
    })
    expect(result.ok && result.invoice.earlyPaymentDiscount).toEqual({ percent: '2.5', until: '2026-03-10' })
  })

  it('keeps the amount as the decimal string given, with up to 18 decimals', () => {
    const result = validateInvoice({ ...valid, amount: '0.000000000000000001' })
    expect(result.ok && result.invoice.amount).toBe('0.000000000000000001')
  })

  it('trims text, drops blank aliases and reads blank optional text as null', () => {
    const result = validateInvoice({
      ...valid,
      number: '  INV-1  ',
      customerName: '  ',
      customerAliases: [' Acme ', '', '  '],
      entityId: '',
    })
    expect(result.ok && result.invoice).toMatchObject({
      number: 'INV-1',
      customerName: null,
      customerAliases: ['Acme'],
      entityId: null,
    })
  })

  it.each([
    ['id', { id: undefined }, 'is required'],
    [
      'id',
      { id: 'has space' },
      'must be 1 to 255 letters, digits, or . _ : ~ - (starting with a letter or digit)',
    ],
    ['id', { id: 'a/b' }, 'must be 1 to 255 letters'],
    ['id', { id: 7 }, 'must be a string'],
    ['number', { number: '' }, 'is required'],
    ['number', { number: '--/--' }, 'must contain a letter or a digit'],
    ['number', { number: 'X'.repeat(141) }, 'must be at most 140 characters'],
    ['amount', { amount: undefined }, 'is required'],
    ['amount', { amount: 120.5 }, 'must be a decimal string such as "120.50"'],
    ['amount', { amount: '1,250.00' }, 'no sign, spaces, currency symbols or thousands separators'],
    ['amount', { amount: '-5' }, 'must be a plain decimal'],
    ['amount', { amount: '1e3' }, 'must be a plain decimal'],
    ['amount', { amount: '0.0000000000000000001' }, 'up to 18 decimals'],
    ['amount', { amount: '0.00' }, 'must be greater than 0'],
    ['currency', { currency: 'eur' }, 'must be 3 to 12 upper-case letters or digits'],
    ['currency', { currency: 'EU' }, 'must be 3 to 12 upper-case letters or digits'],
    ['customerName', { customerName: 'x'.repeat(201) }, 'must be at most 200 characters'],
    ['customerAliases', { customerAliases: 'Acme' }, 'must be an array of names'],
    ['customerAliases', { customerAliases: Array(21).fill('a') }, 'must hold at most 20 names'],
    ['issueDate', { issueDate: '2026-02-30' }, 'must be a calendar date YYYY-MM-DD'],
    ['issueDate', { issueDate: '01/02/2026' }, 'must be a calendar date YYYY-MM-DD'],
    ['dueDate', { issueDate: '2026-03-02', dueDate: '2026-03-01' }, 'must not be before issueDate'],
    ['entityId', { entityId: 'e'.repeat(256) }, 'must be at most 255 characters'],
    ['metadata', { metadata: [1, 2] }, 'must be a JSON object'],
    ['metadata', { metadata: { blob: 'x'.repeat(16_400) } }, 'must be at most 16384 characters as JSON'],
    ['customerId', { customerId: 'has space' }, 'must be a customer id'],
    ['paymentReference', { paymentReference: 'RF19 5390 0754 7034' }, 'check digits do not add up'],
    ['paymentReference', { paymentReference: 'REF#1' }, 'may hold only letters, digits'],
    [
      'earlyPaymentDiscount.percent',
      { earlyPaymentDiscount: { percent: '100', until: '2026-03-01' } },
      'below 100',
    ],
    [
      'earlyPaymentDiscount.percent',
      { earlyPaymentDiscount: { percent: '0', until: '2026-03-01' } },
      'greater than 0',
    ],
    [
      'earlyPaymentDiscount.percent',
      { earlyPaymentDiscount: { percent: 2, until: '2026-03-01' } },
      'decimal string',
    ],
    [
      'earlyPaymentDiscount.until',
      { earlyPaymentDiscount: { percent: '2', until: '2026-02-30' } },
      'calendar date',
    ],
    ['earlyPaymentDiscount.until', { earlyPaymentDiscount: { percent: '2' } }, 'is required'],
    ['amountCredited', { amountCredited: '5' }, 'is derived by bankrec and cannot be written'],
    ['status', { status: 'paid' }, 'is derived by bankrec and cannot be written'],
    ['amountt', { amountt: '1' }, 'is not an invoice field'],
  ])('names the field %s when %j', (field, change, message) => {
    expect(problemsOf({ ...valid, ...change })[field]).toContain(message)
  })

  it('reports every problem of an invoice at once', () => {
    const problems = problemsOf({
      id: '',
      number: '',
      amount: '0',
      currency: 'x',
      issueDate: '2026-03-02',
      dueDate: '2026-03-01',
      extra: true,
    })
    expect(Object.keys(problems).sort()).toEqual(['amount', 'currency', 'dueDate', 'extra', 'id', 'number'])
  })

  it('refuses what is not an object', () => {
    expect(validateInvoice([valid])).toEqual({
      ok: false,
      problems: [{ field: '', message: 'must be a JSON object' }],
    })
    expect(validateInvoice(null).ok).toBe(false)
  })
})
