/**
 * The import rules of src/ (docs/architecture.md): no cycles, pure matching code with no I/O, one webhook envelope
 * reading that neither of its users feeds back into, outbound code that never reaches into the receiver, a matching
 * run that never calls a person's closing work, and a store that holds data, not domain logic. `npm run lint` runs it.
 */
const IO_MODULES = [
  '^node_modules/(pg|ioredis|bullmq|express|kysely)/',
  '^(node:)?(fs|fs/promises|http|https|net|child_process)$',
]

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle; break it with a leaf module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'matcher-is-pure',
      severity: 'error',
      comment: 'The matcher decides from its inputs alone: no database, queue, HTTP or file system.',
      from: { path: '^src/matcher/' },
      to: {
        pathNot: '^src/matcher/',
        path: [...IO_MODULES, '^src/(store|queue|sidecar|receiver|api-client)/'],
      },
    },
    {
      name: 'pure-code-imports-no-io',
      severity: 'error',
      comment:
        'Pure readers decide from their inputs alone: the one reading of the webhook envelope (shared by the ' +
        'receiver and the worker, so it imports neither), what a sync page does to the mirror, the sync ' +
        'dialects, what PostgreSQL can store, canonical JSON and the alert rules and notices (alerts/: sending is ' +
        'alert-delivery/). No database, queue, HTTP server or file system, not even ' +
        'through the store barrel; types are fine.',
      from: {
        path: [
          '^src/(webhook-envelope|storable-json|alerts|canonical-json)/',
          '^src/sync/plan-sync-page[.]ts$',
          '^src/api-client/sync-dialect[.]ts$',
        ],
      },
      to: {
        path: [...IO_MODULES, '^src/(store|queue|sidecar|receiver|webhook-events|pipeline)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'outbound-never-imports-the-receiver',
      severity: 'error',
      comment:
        'Signing lives in src/signing, listeners in src/http-listener; outbound code needs neither the receiver.',
      from: {
        path: '^src/(alerts|app-events|api-client|sandbox|transfers|alert-delivery|connection-health)/',
      },
      to: { path: '^src/receiver/' },
    },
    {
      name: 'matching-never-imports-closing',
      severity: 'error',
      comment:
        "A person's closing work (src/closing) runs matching after each action; the matching run never calls it.",
      from: { path: '^src/matching/' },
      to: { path: '^src/closing/' },
    },
    {
      name: 'store-holds-no-domain-logic',
      severity: 'error',
      comment: 'The store may use domain types, not domain code.',
      from: { path: '^src/store/' },
      to: {
        path: '^src/(sync|matching|closing|matcher|balance-proof|mirror-export|webhook-events|alert-delivery|connection-health|pipeline|alerts|receiver|sidecar|invoices|customers|credit-notes|journal|transfers|app-events|users)/',
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
