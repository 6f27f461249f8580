import { existsSync } from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { openStore } from '../../src/sidecar/open-store.js'
import { createSecretBox, keptSecretKey, startEmbeddedPostgres } from '../../src/store/index.js'

const logger = createLogger({ level: 'silent', destination: process.stderr })
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function base(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bankrec-layout-'))
  // As root the embedded PostgreSQL runs as the postgres user, which must be able to enter the directory.
  await chmod(dir, 0o755)
  dirs.push(dir)
  return dir
}

describe("BANKREC_DATA_DIR, bankrec's data directory", () => {
  it('holds the embedded PostgreSQL in pg/, the generated key and nothing outside it', async () => {
    const dir = path.join(await base(), 'data')
    const store = await openStore(loadConfig({ BANKREC_DATA_DIR: dir, LOG_LEVEL: 'silent' }), logger)
    try {
      expect(store.embedded?.dataDir).toBe(path.join(dir, 'pg'))
      expect(existsSync(path.join(dir, 'secret-key'))).toBe(true)
      expect(existsSync(path.join(dir, 'bankrec.lock'))).toBe(true)
      expect(existsSync(path.join(path.dirname(dir), 'secret-key'))).toBe(false)
    } finally {
      await store.close()
    }
    expect(existsSync(path.join(dir, 'bankrec.lock'))).toBe(false)
  }, 120_000)

  it('keeps using the layout of an older bankrec: PostgreSQL in the directory itself, the key beside it', async () => {
    const parent = await base()
    const dir = path.join(parent, 'data')
    const legacy = await startEmbeddedPostgres({ dataDir: dir })
    await legacy.stop()
    const sealed = createSecretBox(await keptSecretKey(path.join(parent, 'secret-key'))).seal('whsec_kept')
    const store = await openStore(loadConfig({ BANKREC_DATA_DIR: dir, LOG_LEVEL: 'silent' }), logger)
    try {
      expect(store.embedded?.dataDir).toBe(dir)
      expect(store.secretBox.open(sealed)).toBe('whsec_kept')
      expect(existsSync(path.join(dir, 'secret-key'))).toBe(false)
    } finally {
      await store.close()
    }
  }, 120_000)
})
