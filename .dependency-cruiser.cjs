/**
 * The import rules of src/ (docs/architecture.md): no cycles, pure matching code with no I/O, one webhook envelope
 * reading that neither of its users feeds back into, outbound code that never reaches into the receiver, and a store
 * that holds data, not domain logic. `npm run lint` runs it.
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
      name: 'webhook-envelope-is-a-leaf',
      severity: 'error',
      comment:
        'The one reading of the webhook envelope, shared by the receiver and the worker: it imports neither, ' +
        'nor the queue, the sidecar or any database, queue, HTTP or file-system module. It still imports the ' +
        'api-client (ConnectionStatus) and the store (its storability checks), each through its barrel.',
      from: { path: '^src/webhook-envelope/' },
      to: {
        pathNot: '^src/webhook-envelope/',
        path: [...IO_MODULES, '^src/(receiver|webhook-events|queue|sidecar)/'],
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
      name: 'store-holds-no-domain-logic',
      severity: 'error',
      comment: 'The store may use domain types, not domain code.',
      from: { path: '^src/store/' },
      to: {
        path: '^src/(sync|matching|matcher|balance-proof|mirror-export|webhook-events|alert-delivery|connection-health|pipeline|alerts|receiver|sidecar|invoices|customers|credit-notes|journal|transfers|app-events|users)/',
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
