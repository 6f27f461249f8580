import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { inboxKeys } from '../../src/queue/index.js'
import { openStore } from '../../src/sidecar/index.js'
import { deleteWebhookRegistration, saveWebhookRegistration } from '../../src/store/index.js'
import { deleteKeys, signed, testEvent } from '../receiver/deliveries.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { sampleValue, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let redis: Redis

beforeAll(async () => {
  sidecar = await startTestSidecar('webhook_secrets', ['receiver', 'worker', 'api'])
  redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null })
}, 60_000)

afterAll(async () => {
  await sidecar?.close()
  await deleteKeys(redis, `${sidecar?.prefix}:*`)
  redis?.disconnect()
  await sidecar?.drop()
})

async function deliver(secret: string): Promise<number> {
  const answer = await fetch(`${sidecar.url}/webhooks`, {
    method: 'POST',
    ...signed(JSON.stringify(testEvent()), secret),
  })
  return answer.status
}

describe('webhook signing secrets of a running sidecar', () => {
  it('honours a secret registered while it runs at once, and keeps it sealed in the database', async () => {
    const secret = 'whsec_registered_just_now_7d41c2'
    const { db, secretBox } = sidecar.context.store
    await saveWebhookRegistration(db, secretBox, {
      id: 'wh_registered_now',
      url: 'https://bankrec.example/hooks',
      secret,
    })
    // No wait for the periodic re-read: the first delivery's miss re-reads the stored secrets.
    expect(await deliver(secret)).toBe(202)
    expect(await deliver('whsec_forged_by_someone_else')).toBe(401)

    const row = await db
      .selectFrom('webhook_registrations')
      .selectAll()
      .where('id', '=', 'wh_registered_now')
      .executeTakeFirstOrThrow()
    expect(row.secret).toBeNull()
    expect(JSON.stringify(row)).not.toContain(secret)
    expect(row.secret_sealed).toMatch(/^v1\./)
  })

  it('refuses a retired secret: its registration deleted, its signature is refused', async () => {
    const secret = 'whsec_soon_retired_5b90aa'
    const { db, secretBox } = sidecar.context.store
    await saveWebhookRegistration(db, secretBox, {
      id: 'wh_retired',
      url: 'https://old.example/hooks',
      secret,
    })
    expect(await deliver(secret)).toBe(202)
    await deleteWebhookRegistration(db, 'wh_retired')
    // A running sidecar re-reads every 5 s; here at once.
    await sidecar.context.webhookSecrets.refresh()
    expect(await deliver(secret)).toBe(401)
  })

  it('seals a secret stored in plaintext (before migration 0015) when a process opens the store', async () => {
    const { db, secretBox } = sidecar.context.store
    await db
      .insertInto('webhook_registrations')
      .values({
        id: 'wh_legacy',
        url: 'https://legacy.example/hooks',
        secret: 'whsec_legacy_plain_31e0',
        secret_sealed: null,
      })
      .execute()
    const config = loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: sidecar.schema,
    })
    const store = await openStore(config, createLogger({ level: 'silent', destination: process.stderr }))
    await store.close()
    const row = await db
      .selectFrom('webhook_registrations')
      .select(['secret', 'secret_sealed'])
      .where('id', '=', 'wh_legacy')
      .executeTakeFirstOrThrow()
    expect(row.secret).toBeNull()
    expect(secretBox.open(row.secret_sealed!)).toBe('whsec_legacy_plain_31e0')
  })
})

describe('dead letters on the Redis inbox (finding 2)', () => {
  it('alerts operations and counts an accepted entry that cannot be queued', async () => {
    const keys = inboxKeys(sidecar.prefix)
    await redis.rpush(keys.inbox, '{"eventId":"evt_dead_1","type":"test","event":"not an object"}')
    await redis.rpush(keys.wake, '1')
    await vi.waitFor(
      async () => {
        const notice = await sidecar.context.store.db
          .selectFrom('alert_notices')
          .select(['kind', 'severity', 'subject'])
          .where('kind', '=', 'webhook_dead_letter')
          .executeTakeFirst()
        expect(notice).toEqual({
          kind: 'webhook_dead_letter',
          severity: 'critical',
          subject: { event: { id: 'evt_dead_1', type: 'test' } },
        })
      },
      { timeout: 15_000, interval: 200 },
    )
    const metrics = await (await fetch(`${sidecar.url}/metrics`)).text()
    expect(sampleValue(metrics, 'bankrec_webhook_dead_letters')).toBe(1)
  })
})
