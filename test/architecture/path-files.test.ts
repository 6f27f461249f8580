import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The map of one `transactions.sync_available` event (docs/architecture.md) is checked against the tree: every file
 * it names exists, and the files outside the pure matcher stay within the bar.
 */
const ROOT = resolve(import.meta.dirname, '../..')
const HEADING = '## One `transactions.sync_available` event, file by file'

/**
 * Issue 18: one event's path touches at most this many files outside the pure matcher, on either backend (25, and
 * 27 since the app event's sending and dispatching were split apart; issue 28 retires the count).
 */
const PATH_FILE_LIMIT = 27

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

  it.each(['postgres', 'redis'] as const)(
    'touches at most PATH_FILE_LIMIT files outside the pure matcher on %s',
    (kind) => {
      const other = BACKEND_FILES[kind === 'postgres' ? 'redis' : 'postgres']
      expect(files).toContain(BACKEND_FILES[kind])
      const onPath = files.filter((file) => !file.startsWith('src/matcher/') && file !== other)
      expect(onPath.length).toBeLessThanOrEqual(PATH_FILE_LIMIT)
    },
  )

  it('never climbs into the sidecar', () => {
    expect(files.filter((file) => file.startsWith('src/sidecar/'))).toEqual([])
  })
})
