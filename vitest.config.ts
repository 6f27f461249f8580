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

/**
 * Files that replace a module (`vi.mock`): a replacement holds only in a module graph of the file's own, so these
 * run isolated. `test/architecture/test-isolation.test.ts` keeps this list complete.
 */
export const MOCKS_MODULES = ['test/security/constant-time.test.ts']

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
          exclude: [...WHOLE_SYSTEM, ...MOCKS_MODULES],
          // Most files wait on PostgreSQL, Redis or a socket, so two at a time keep both cores busy.
          maxWorkers: 2,
          // A worker keeps its modules from file to file: importing the app anew for every file took about half
          // of the suite's CPU. Each file still builds its own servers, pools and schemas.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: MOCKS_MODULES,
          maxWorkers: 1,
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
