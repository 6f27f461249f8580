import { defineConfig } from 'vitest/config'

/**
 * Files that run a whole cluster of bankrec processes, or a full start of one, and use both cores by themselves:
 * they run after the rest, one at a time, so they neither starve nor are starved by the other files.
 */
const WHOLE_SYSTEM = [
  'test/chaos/**/*.test.ts',
  'test/sync/mirror-invariant.test.ts',
  'test/demo/**/*.test.ts',
  'test/cli/beside-running-start.test.ts',
  'test/packaging/image-layout.test.ts',
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: WHOLE_SYSTEM,
          // Most files wait on PostgreSQL, Redis or a socket, so two at a time keep both cores busy.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'whole-system',
          include: WHOLE_SYSTEM,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
