import path from 'node:path'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import {
  createDatabase,
  migrateToLatest,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type StoreDatabase,
} from '../store/index.js'

export type OpenStore = StoreDatabase & {
  connectionString: string
  /** Set when bankrec started its own PostgreSQL (no DATABASE_URL). */
  embedded?: EmbeddedPostgres
  close(): Promise<void>
}

/** The database: DATABASE_URL, or an embedded PostgreSQL under BANKREC_DATA_DIR (default .bankrec/); migrated. */
export async function openStore(config: BankrecEnv, logger: Logger, cwd = process.cwd()): Promise<OpenStore> {
  let embedded: EmbeddedPostgres | undefined
  let connectionString = config.DATABASE_URL
  if (!connectionString) {
    const dataDir = config.BANKREC_DATA_DIR ?? path.join(cwd, '.bankrec', 'pg')
    embedded = await startEmbeddedPostgres({
      dataDir,
      dataDirExplicit: config.BANKREC_DATA_DIR !== undefined,
      onLog: (line) => logger.debug({ postgres: line }, 'embedded postgres'),
    })
    connectionString = embedded.connectionString
    logger.info(
      { dataDir: embedded.dataDir, port: embedded.port },
      'started embedded PostgreSQL (no DATABASE_URL)',
    )
  }
  const store = createDatabase({ connectionString, schema: config.BANKREC_SCHEMA })
  try {
    const applied = await migrateToLatest(store.db, store.schema)
    if (applied.length > 0) logger.info({ applied }, 'database migrated')
  } catch (error) {
    await store.db.destroy()
    await embedded?.stop()
    throw error
  }
  return {
    ...store,
    connectionString,
    embedded,
    async close() {
      await store.db.destroy()
      await embedded?.stop()
    },
  }
}
