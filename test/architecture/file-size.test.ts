import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * One idea per file: no file in src/ (its tests included) grows past what a reader takes in at once. Only the
 * database's table types are exempt: one interface per table, read as a reference, not as a story.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const LINE_LIMIT = 400
const EXEMPT = new Set(['src/store/database.ts'])

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [relative(ROOT, path)] : []
  })
}

describe('src/', () => {
  it(`holds no file over ${LINE_LIMIT} lines but the table types`, () => {
    const files = sourceFiles(join(ROOT, 'src'))
    expect(files.length).toBeGreaterThan(100)
    const over = files
      .filter((file) => !EXEMPT.has(file))
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > LINE_LIMIT)
      .map(({ file, lines }) => `${file}: ${lines}`)
    expect(over).toEqual([])
  })
})
