import type { RequestHandler } from 'express'
import type { Kysely } from 'kysely'
import { Registry } from 'prom-client'
import { systemClock } from '../../src/clock/index.js'
import { silentLogger } from '../../src/observability/index.js'
import { createSidecarAuth, requireActor, type SidecarAuthDeps } from '../../src/sidecar/auth/index.js'
import type { Database } from '../../src/store/index.js'

/** What the sidecar's authentication needs, for a test: the built-in admin `admin`, a throttle far away. */
export function testAuthDeps(db: Kysely<Database>, apiToken: string): SidecarAuthDeps {
  return {
    db,
    apiToken,
    builtinName: 'admin',
    clock: systemClock,
    logger: silentLogger,
    registry: new Registry(),
    failureBurst: 1000,
    failureRefillSeconds: 1,
  }
}

/** The /api guard as the sidecar mounts it (src/sidecar/http-app.ts), for apps built of single route files. */
export function testApiGuard(db: Kysely<Database>, apiToken: string): RequestHandler {
  return requireActor(createSidecarAuth(testAuthDeps(db, apiToken)))
}
