import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BankrecEnv } from '../../src/config/index.js'

describe('docs/configuration.md', () => {
  it('has a row for every environment variable of the schema', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
    const documented = new Set([...doc.matchAll(/^\| `([A-Z0-9_]+)` +\|/gm)].map((m) => m[1]))
    expect(Object.keys(BankrecEnv.shape).filter((name) => !documented.has(name))).toEqual([])
  })
})
