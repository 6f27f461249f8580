import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MOCKS_MODULES } from '../../vitest.config.js'

/**
 * The suite's workers keep their modules from file to file (vitest.config.ts), so a file that replaces a module
 * would replace it for the files after it, or find it already imported. Such files run isolated, and this keeps
 * their list in step with the code.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const REPLACES_A_MODULE = new RegExp(String.raw`\bvi\.(do)?mock\(`)

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : []
  })
}

describe('test isolation', () => {
  it('runs every file that replaces a module isolated, and only those', () => {
    const files = [...testFiles(join(ROOT, 'src')), ...testFiles(join(ROOT, 'test'))]
    expect(files.length).toBeGreaterThan(200)
    const replacing = files.filter((file) => REPLACES_A_MODULE.test(readFileSync(join(ROOT, file), 'utf8')))
    expect(replacing.sort()).toEqual([...MOCKS_MODULES].sort())
  })
})
