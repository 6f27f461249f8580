import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSecretBox, deleteWebhookRegistration, saveWebhookRegistration } from '../../src/store/index.js'
import { createWebhookSecrets, type WebhookSecrets } from '../../src/webhook-secrets/index.js'
import { recordingDatabase } from '../support/recording-database.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

/**
 * Issue 26: each delivery with a bad signature waited about a second for the stored secrets to be read again,
 * whether a registration had changed or not. Now a miss checks the registrations' fingerprint (one statement) and
 * reads the secrets only when it changed; nothing waits on a timer.
 */
let database: TestDatabase
let secrets: WebhookSecrets
const box = createSecretBox(randomBytes(32))

beforeAll(async () => {
  database = await createTestDatabase('secret_miss')
  await saveWebhookRegistration(database.db, box, {
    id: 'wh_1',
    url: 'http://a.example/webhooks',
    secret: 'first',
  })
})
afterAll(async () => {
  secrets?.stop()
  await database?.drop()
})

describe('refreshOnMiss', () => {
  it('answers a miss at once when no registration changed: one fingerprint statement, no re-read', async () => {
    const statements: string[] = []
    // The periodic re-read never fires during the test.
    secrets = createWebhookSecrets(recordingDatabase(database.pool, statements), box, ['configured'], {
      refreshEveryMs: 3_600_000,
    })
    await secrets.refresh()
    expect(secrets.current()).toEqual(['configured', 'first'])
    statements.length = 0
    await Promise.all(Array.from({ length: 20 }, () => secrets.refreshOnMiss()))
    // Twenty misses together: the first runs a check, the other nineteen share the one after it.
    expect(statements.length).toBeLessThanOrEqual(2)
    expect(statements.every((sql) => sql.includes('md5'))).toBe(true)
    expect(secrets.current()).toEqual(['configured', 'first'])
  })

  it('re-reads at once when a registration was added or removed since the last read (control)', async () => {
    await saveWebhookRegistration(database.db, box, {
      id: 'wh_2',
      url: 'http://b.example/webhooks',
      secret: 'second',
    })
    await secrets.refreshOnMiss()
    expect(secrets.current()).toEqual(expect.arrayContaining(['configured', 'first', 'second']))
    await deleteWebhookRegistration(database.db, 'wh_1')
    await secrets.refreshOnMiss()
    expect(secrets.current()).toEqual(['configured', 'second'])
  })
})
