import path from 'node:path'
import type { BankrecEnv } from '../config/index.js'
import { rekeyCustomers } from '../customers/index.js'
import { rekeyInvoices } from '../invoices/index.js'
import type { Logger } from '../observability/index.js'
import {
  createDatabase,
  createSecretBox,
  keptSecretKey,
  migrateToLatest,
  parseSecretKey,
  sealPlaintextWebhookSecrets,
  SECRET_KEY_FILE,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type SecretBox,
  type StoreDatabase,
} from '../store/index.js'

export type OpenStore = StoreDatabase & {
  connectionString: string
  /** Set when bankrec started its own PostgreSQL (no DATABASE_URL). */
  embedded?: EmbeddedPostgres
  /** Seals and opens the webhook signing secrets stored in the database (BANKREC_SECRET_KEY). */
  secretBox: SecretBox
  close(): Promise<void>
}

/** The database: DATABASE_URL, or an embedded PostgreSQL under BANKREC_DATA_DIR (default .bankrec/); migrated. */
export async function openStore(config: BankrecEnv, logger: Logger, cwd = process.cwd()): Promise<OpenStore> {
  let embedded: EmbeddedPostgres | undefined
  let connectionString = config.DATABASE_URL
  const dataDir = config.BANKREC_DATA_DIR ?? path.join(cwd, '.bankrec', 'pg')
  const secretBox = createSecretBox(await secretKey(config, dataDir, logger))
  if (!connectionString) {
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
    const sealed = await sealPlaintextWebhookSecrets(store.db, secretBox)
    if (sealed > 0) logger.info({ sealed }, 'webhook signing secrets sealed at rest')
    const rekeyed = await rekeyInvoices(store.db)
    if (rekeyed > 0) logger.info({ rekeyed }, 'invoice lookup keys made with the current rules')
    const rekeyedCustomers = await rekeyCustomers(store.db)
    if (rekeyedCustomers > 0)
      logger.info({ rekeyedCustomers }, 'customer lookup keys made with the current rules')
  } catch (error) {
    await store.db.destroy()
    await embedded?.stop()
    throw error
  }
  return {
    ...store,
    connectionString,
    embedded,
    secretBox,
    async close() {
      await store.db.destroy()
      await embedded?.stop()
    },
  }
}

/**
 * BANKREC_SECRET_KEY, or a key generated once and kept owner-only beside the data directory (`.bankrec/secret-key`
 * by default). Processes on other machines sharing DATABASE_URL would each make their own, so they are told to set
 * the variable.
 */
async function secretKey(config: BankrecEnv, dataDir: string, logger: Logger): Promise<Buffer> {
  const configured =
    config.BANKREC_SECRET_KEY === undefined ? undefined : parseSecretKey(config.BANKREC_SECRET_KEY)
  if (configured) return configured
  const file = path.join(path.dirname(dataDir), SECRET_KEY_FILE)
  if (config.DATABASE_URL) {
    logger.warn(
      { file },
      'BANKREC_SECRET_KEY is unset: webhook secrets are sealed with a key kept in this file; set BANKREC_SECRET_KEY so every process sharing the database uses one key',
    )
  }
  return keptSecretKey(file)
}
