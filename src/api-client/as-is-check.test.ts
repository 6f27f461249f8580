import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { asIsCheck } from './as-is-check.js'
import { Transaction } from './sync-dialect.js'

const transactionAsIs = asIsCheck(Transaction)!

const benchTransaction = {
  id: '5b0d8a3e-6f5c-4a51-9d7e-0c2f1b3a4d5e',
  connectionId: '0b5d8a3e-6f5c-4a51-9d7e-0c2f1b3a4d5e',
  accountId: '7c0d8a3e-6f5c-4a51-8d7e-0c2f1b3a4d5e',
  postedDate: '2026-02-28',
  updatedAt: '2026-03-02T09:00:00.000Z',
  amount: '-12.34',
  currency: 'USD',
  description: 'Bench payment 1, "quoted"',
  mcc: null,
  counterpartyAccountMasked: '••4321',
  status: 'posted',
  entryType: 'debit',
  rail: 'ach',
  somethingNew: { nested: [1, 'two'] },
}

/** A field's value: often valid, often not quite, sometimes another type or absent. */
const anyValue = fc.oneof(
  fc.uuid(),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom('2026-02-29', '2024-02-29', '2026-03-02T09:00:00+01:00', '2026-03-02 09:00:00Z'),
  fc.constantFrom('-12.34', '+1', '.5', '1.', '1e3', ' 1', '12.34\n'),
  fc.constantFrom('posted', 'POSTED', 'credit', 'ach', 'unknown', 'toString', '__proto__'),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(null, undefined, 0, 1.5, true, [], {}),
)

/** A transaction-shaped object: each declared field absent or any value, plus a few undeclared keys. */
const transactionLike = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...Object.keys(Transaction.shape)), anyValue),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    fc.record({ id: fc.uuid(), connectionId: fc.uuid(), accountId: fc.uuid() }),
    fc.boolean(),
  )
  .map(([declared, undeclared, ids, withIds]) => ({ ...undeclared, ...(withIds ? ids : {}), ...declared }))

describe('asIsCheck', () => {
  it('takes a transaction as it came where zod would return it unchanged', () => {
    expect(transactionAsIs(benchTransaction)).toBe(true)
    expect(Transaction.parse(benchTransaction)).toStrictEqual(benchTransaction)
  })

  it('holds exactly where zod accepts a plain object, and then zod returns it unchanged', () => {
    fc.assert(
      fc.property(transactionLike, (value) => {
        const zod = Transaction.safeParse(value)
        expect(transactionAsIs(value)).toBe(zod.success)
        if (zod.success) expect(zod.data).toStrictEqual(value)
      }),
      { numRuns: 5000 },
    )
  })

  it('leaves to zod what it would change: an own __proto__ key, inherited keys, a non-object', () => {
    const withProto = JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(benchTransaction).slice(1)}`)
    expect(Transaction.safeParse(withProto).data).not.toStrictEqual(withProto)
    expect(transactionAsIs(withProto)).toBe(false)
    const inheriting = Object.assign(Object.create({ inherited: 'x' }), benchTransaction)
    expect(transactionAsIs(inheriting)).toBe(false)
    for (const value of [null, [], 'x', 1, undefined]) expect(transactionAsIs(value)).toBe(false)
  })

  it.each([
    ['a stripping object', z.object({ a: z.string() })],
    ['a strict object', z.strictObject({ a: z.string() })],
    ['a transform', z.looseObject({ a: z.string().transform((s) => s.trim()) })],
    ['a default', z.looseObject({ a: z.string().default('x') })],
    ['a length check', z.looseObject({ a: z.string().min(1) })],
    ['a refinement', z.looseObject({ a: z.string() }).refine(() => true)],
    ['a field refinement', z.looseObject({ a: z.string().refine(() => true) })],
    ['a format with more than a pattern', z.looseObject({ a: z.url() })],
    ['a number', z.looseObject({ a: z.number() })],
    ['a coercion', z.looseObject({ a: z.coerce.string() })],
    ['a nested object', z.looseObject({ a: z.looseObject({}) })],
  ])('is not made for a schema with %s (zod alone reads it)', (_name, schema) => {
    expect(asIsCheck(schema)).toBeUndefined()
  })
})
