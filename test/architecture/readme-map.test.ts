import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/** The README's map of the source tree names every folder of src/, so a newcomer finds each room from it. */
const ROOT = resolve(import.meta.dirname, '../..')

describe("the README's map of src/", () => {
  it('names every folder of src/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(folders.length).toBeGreaterThan(10)
    expect(folders.filter((folder) => !readme.includes(`\`src/${folder}/\``))).toEqual([])
  })
})
