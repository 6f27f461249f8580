import { Redis } from 'ioredis'

/** What Redis keeps across a restart: the append-only file, RDB snapshots, or what we could not read. */
export type RedisPersistence = { aof: boolean; rdb: boolean } | { unreadable: string }

/**
 * The loud warning for a Redis that keeps nothing across a restart: deliveries answered 202 wait there until a
 * worker forwards them, so a restart loses them. Undefined when AOF or RDB snapshots are on.
 */
export function persistenceWarning(persistence: RedisPersistence): string | undefined {
  if ('unreadable' in persistence) return undefined
  if (persistence.aof || persistence.rdb) return undefined
  return (
    'Redis keeps neither an append-only file nor RDB snapshots: webhook events answered 202 and not yet taken ' +
    'by a worker are lost if Redis restarts. Turn on appendonly yes (docs/deployment.md, Redis).'
  )
}

/** Reads `appendonly` and `save` with CONFIG GET (a managed Redis may refuse it: then it is unreadable). */
export async function readRedisPersistence(url: string): Promise<RedisPersistence> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[]
    const [, save] = (await redis.config('GET', 'save')) as string[]
    return { aof: appendonly === 'yes', rdb: (save ?? '').trim() !== '' }
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) }
  } finally {
    redis.disconnect()
  }
}
