import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The map of one `transactions.sync_available` event (docs/architecture.md) is checked against the tree: every file
 * it names exists and stays within the size a reader takes in. The path is measured in hand-offs
 * (path-handoffs.test.ts), not in files: a file count rewards merging files.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const HEADING = '## One `transactions.sync_available` event, file by file'

/** One idea per file: a file on the path that outgrows this is split along its seams. */
const FILE_LINE_LIMIT = 400

/** One event takes one queue backend: each deployment's path leaves out the other backend's file. */
const BACKEND_FILES = {
  postgres: 'src/queue/postgres-webhook-event-queue.ts',
  redis: 'src/queue/redis-webhook-event-queue.ts',
} as const

function pathSection(): string {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
  const start = doc.indexOf(HEADING)
  if (start === -1) throw new Error(`docs/architecture.md has no section "${HEADING}"`)
  const next = doc.indexOf('\n## ', start + HEADING.length)
  return next === -1 ? doc.slice(start) : doc.slice(start, next)
}

function filesNamed(section: string): string[] {
  return [...new Set(section.match(/src\/[\w./-]+?\.ts\b/g) ?? [])].sort()
}

describe('the webhook → invoice.paid path in docs/architecture.md', () => {
  const files = filesNamed(pathSection())

  it('names its files by their full paths, never a bare file name', () => {
    expect(files.length).toBeGreaterThan(0)
    const bare = (pathSection().match(/`[\w.-]+\.ts`/g) ?? []).map((name) => name.slice(1, -1))
    expect(bare).toEqual([])
  })

  it('names only files that exist', () => {
    expect(files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([])
  })

  it.each(['postgres', 'redis'] as const)('names the queue backend file of %s', (kind) => {
    expect(files).toContain(BACKEND_FILES[kind])
  })

  it('holds no file over FILE_LINE_LIMIT lines', () => {
    const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1
    expect(
      files.filter((file) => lines(file) > FILE_LINE_LIMIT).map((file) => `${file}: ${lines(file)}`),
    ).toEqual([])
  })

  it('never climbs into the sidecar', () => {
    expect(files.filter((file) => file.startsWith('src/sidecar/'))).toEqual([])
  })
})
