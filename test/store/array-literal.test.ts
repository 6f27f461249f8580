import { createRequire } from 'node:module'
import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrayLiteral } from '../../src/store/array-literal.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): string
}

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase('array_literal')
})

afterAll(async () => {
  await database?.drop()
})

/** What PostgreSQL reads a text[] literal as: each element's text and whether it is NULL. */
const read = async (literal: string) =>
  (
    await sql<{ element: string | null }>`
      select element from unnest(${literal}::text[]) with ordinality as e(element, n) order by n
    `.execute(database.db)
  ).rows.map((r) => r.element)

const cases: Record<string, unknown[]> = {
  'plain strings and nulls': ['a', null, 'USD', '2026-03-02T09:00:00.000Z', null],
  'quotes, backslashes, separators and braces': [
    'Bench payment 1, "quoted"',
    'C:\\path\\',
    '\\"',
    '{a,b}',
    ' spaced ',
    '',
  ],
  'words an unquoted element would read otherwise': ['NULL', 'null', 'Null'],
  'non-ASCII, astral and DEL': ['••4321', 'Zürich', '😀', '\u007f', '\u2028'],
  'control characters (node-postgres encodes them)': ['line\nbreak', 'tab\there', '\u0001', 'cr\r'],
  'a lone surrogate (node-postgres encodes it)': ['\ud800x'],
  'numbers and dates (node-postgres encodes them)': [1, 2.5, null],
  empty: [],
}

describe('arrayLiteral', () => {
  for (const [name, values] of Object.entries(cases)) {
    it(`is read by PostgreSQL as node-postgres's literal is: ${name}`, async () => {
      expect(await read(arrayLiteral(values))).toEqual(await read(prepareValue(values)))
    })
  }

  it("is read by PostgreSQL as node-postgres's literal is, for any strings and nulls", async () => {
    // Any UTF-16 units, lone surrogates and control characters included, with the characters an array literal
    // treats specially drawn often. U+0000 is left out: PostgreSQL text cannot hold it, whoever encodes it.
    const special = fc.constantFrom('"', '\\', ',', '{', '}', ' ', 'NULL', 'null', '\n', '\ud800', '\udc00')
    const unit = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: special }))
    const text = unit.map((s) => s.replaceAll('\u0000', ''))
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 8 }), async (values) => {
        expect(await read(arrayLiteral(values))).toEqual(await read(prepareValue(values)))
      }),
      { numRuns: 300 },
    )
  })

  it('hands what JSON escapes otherwise to node-postgres, byte for byte', () => {
    for (const values of [['a\nb'], ['\ud800'], [1, null], [new Date(0)]])
      expect(arrayLiteral(values)).toBe(prepareValue(values))
  })

  it('is the JSON of strings and nulls with braces', () => {
    expect(arrayLiteral(['a "b"', null, 'c\\d'])).toBe('{"a \\"b\\"",null,"c\\\\d"}')
  })
})
