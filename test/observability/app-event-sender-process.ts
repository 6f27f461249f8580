import { startAppEventDelivery } from '../../src/app-events/index.js'
import { systemClock } from '../../src/clock/index.js'
import { createLogger, startTracing } from '../../src/observability/index.js'
import { createDatabase } from '../../src/store/index.js'

/**
 * A second process that only sends app events (the worker role's delivery), traced by the OTEL_* variables it is
 * given: run by app-event-trace.test.ts through tsx. It prints `ready` once it listens, and on SIGTERM stops and
 * exports its spans before exiting.
 */
const env = process.env
const logger = createLogger({ level: 'silent' })
const tracing = await startTracing(env, logger)
const store = createDatabase({ connectionString: env.DATABASE_URL!, schema: env.SCHEMA! })
const delivery = await startAppEventDelivery({
  db: store.db,
  connectionString: env.DATABASE_URL!,
  schema: env.SCHEMA!,
  backend: { kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: env.QUEUE_PREFIX! },
  clock: systemClock,
  logger,
  target: { url: env.APP_WEBHOOK_URL!, secret: env.APP_WEBHOOK_SECRET! },
})
process.once('SIGTERM', () => {
  void (async () => {
    await delivery.close()
    await store.db.destroy()
    await tracing.shutdown()
    process.exit(0)
  })()
})
process.stdout.write('ready\n')
