import { existsSync, promises as fs } from 'node:fs'
import path from 'node:path'
import { ConfigError, type BankrecEnv } from '../config/index.js'
import { rekeyCustomers } from '../customers/index.js'
import { rekeyInvoices } from '../invoices/index.js'
import type { Logger } from '../observability/index.js'
import {
  claimDataDir,
  createDatabase,
  createSecretBox,
  keptSecretKey,
  migrateToLatest,
  parseSecretKey,
  sealPlaintextWebhookSecrets,
  SECRET_KEY_FILE,
  startEmbeddedPostgres,
  waitForPublished,
  type DataDirHolder,
  type EmbeddedPostgres,
  type SecretBox,
  type StoreDatabase,
} from '../store/index.js'

export type OpenStore = StoreDatabase & {
  connectionString: string
  /** Set when bankrec started its own PostgreSQL (no DATABASE_URL). */
  embedded?: EmbeddedPostgres
  /** Set when this process uses the embedded PostgreSQL of the bankrec that holds the data directory. */
  guestOf?: DataDirHolder
  /** Seals and opens the webhook signing secrets stored in the database (BANKREC_SECRET_KEY). */
  secretBox: SecretBox
  close(): Promise<void>
}

export type OpenStoreOptions = {
  /**
   * A long-running process (the sidecar's roles) must hold the data directory itself: a running holder is an
   * error. Otherwise (CLI commands) a running holder's PostgreSQL is used.
   */
  exclusive?: boolean
  /** What this process is, for the lock file and the messages of whoever finds the directory held. */
  command?: string
}

/** How long a command waits for a starting holder's PostgreSQL to accept connections. */
const HOLDER_START_WAIT_MS = 120_000

/**
 * bankrec's own data directory (zero-config runs): BANKREC_DATA_DIR, else `.bankrec/`. It holds the embedded
 * PostgreSQL (`pg/`), the generated secret key, the lock of the process that runs there and, in sandbox mode, the
 * simulated bank's state.
 */
function dataRootOf(config: BankrecEnv, cwd = process.cwd()): string {
  return path.resolve(cwd, config.BANKREC_DATA_DIR ?? '.bankrec')
}

/** The embedded PostgreSQL's data: `pg/` in the data root, or the root itself where an older bankrec put it there. */
function postgresDataDir(root: string): string {
  return existsSync(path.join(root, 'PG_VERSION')) ? root : path.join(root, 'pg')
}

/** The database: DATABASE_URL, or an embedded PostgreSQL in the data root (default .bankrec/); migrated. */
export async function openStore(
  config: BankrecEnv,
  logger: Logger,
  cwd = process.cwd(),
  options: OpenStoreOptions = {},
): Promise<OpenStore> {
  if (config.DATABASE_URL) {
    const secretBox = createSecretBox(configuredSecretKey(config))
    return migrated(config, logger, config.DATABASE_URL, secretBox, async () => undefined)
  }
  const root = dataRootOf(config, cwd)
  // Others may enter (as root the embedded PostgreSQL runs as the postgres user); every secret in it is 0600.
  await fs.mkdir(root, { recursive: true, mode: 0o755 })
  const command = options.command ?? `bankrec ${process.argv[2] ?? ''}`.trim()
  const claim = await claimDataDir(root, command)
  if (claim.held) return openAsGuest(config, logger, root, claim.lockFile, claim.holder, options)
  try {
    const secretBox = createSecretBox(await secretKey(config, root, logger))
    const embedded = await startEmbeddedPostgres({
      dataDir: postgresDataDir(root),
      dataDirExplicit: config.BANKREC_DATA_DIR !== undefined,
      onLog: (line) => logger.debug({ postgres: line }, 'embedded postgres'),
    })
    logger.info(
      { dataDir: embedded.dataDir, port: embedded.port },
      'started embedded PostgreSQL (no DATABASE_URL)',
    )
    await claim.publish(embedded.connectionString)
    const stop = async () => {
      await embedded.stop()
      await claim.release()
    }
    const store = await migrated(config, logger, embedded.connectionString, secretBox, stop)
    return { ...store, embedded }
  } catch (error) {
    await claim.release()
    throw error
  }
}

/** A command beside a running bankrec: its PostgreSQL, never a second one on the same data. */
async function openAsGuest(
  config: BankrecEnv,
  logger: Logger,
  root: string,
  lockFile: string,
  found: DataDirHolder,
  options: OpenStoreOptions,
): Promise<OpenStore> {
  const who = `${found.command} (pid ${found.pid}, since ${found.startedAt})`
  if (options.exclusive) {
    throw new Error(
      `${root} is in use by ${who}. Stop it first (Ctrl-C in its terminal, or kill ${found.pid}) or wait for it ` +
        'to finish, or give this process a data directory of its own with BANKREC_DATA_DIR.',
    )
  }
  const holder = found.connectionString ? found : await waitForPublished(lockFile, HOLDER_START_WAIT_MS)
  if (!holder?.connectionString) {
    throw new Error(
      `${who} holds ${root} but its PostgreSQL is not up; try again once it has started (or stopped).`,
    )
  }
  logger.info({ holder: holder.pid }, `using the embedded PostgreSQL of the running ${holder.command}`)
  const secretBox = createSecretBox(await secretKey(config, root, logger))
  const store = await migrated(config, logger, holder.connectionString, secretBox, async () => undefined)
  return { ...store, guestOf: holder }
}

/** Connects, migrates and brings stored data up to the current rules; `stop` runs after the pool closes. */
async function migrated(
  config: BankrecEnv,
  logger: Logger,
  connectionString: string,
  secretBox: SecretBox,
  stop: () => Promise<void>,
): Promise<OpenStore> {
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
    await stop()
    throw error
  }
  return {
    ...store,
    connectionString,
    secretBox,
    async close() {
      await store.db.destroy()
      await stop()
    },
  }
}

/**
 * BANKREC_SECRET_KEY. With DATABASE_URL it is required (the configuration schema says so first): every process
 * sharing the database must seal and open the webhook secrets with one key, never one of its own.
 */
function configuredSecretKey(config: BankrecEnv): Buffer {
  const key = config.BANKREC_SECRET_KEY === undefined ? undefined : parseSecretKey(config.BANKREC_SECRET_KEY)
  if (!key)
    throw new ConfigError([
      'BANKREC_SECRET_KEY is required when DATABASE_URL is set (generate one with `openssl rand -base64 32`)',
    ])
  return key
}

/**
 * BANKREC_SECRET_KEY, or (zero-config) a key generated once and kept owner-only in the data root
 * (`.bankrec/secret-key`, `$BANKREC_DATA_DIR/secret-key`). An older bankrec kept it beside BANKREC_DATA_DIR: that
 * file is still read, so the secrets sealed with it still open.
 */
async function secretKey(config: BankrecEnv, root: string, logger: Logger): Promise<Buffer> {
  if (config.BANKREC_SECRET_KEY !== undefined) return configuredSecretKey(config)
  const file = path.join(root, SECRET_KEY_FILE)
  const legacy = path.join(path.dirname(root), SECRET_KEY_FILE)
  if (config.BANKREC_DATA_DIR !== undefined && !existsSync(file) && existsSync(legacy)) {
    logger.info({ file: legacy }, 'the secret key is read from where an older bankrec kept it')
    return keptSecretKey(legacy)
  }
  return keptSecretKey(file)
}
