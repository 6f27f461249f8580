import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { WEBHOOK_EVENTS_QUEUE, createInboxForwarder, type InboxForwarder } from '../../src/queue/index.js'
import { saveWebhookRegistration } from '../../src/store/index.js'
import { signed, testEvent } from '../receiver/deliveries.js'
import { startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { testIo } from './test-io.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let redis: Redis
let view: Queue
let forwarder: InboxForwarder
let env: Record<string, string>
let webhookUrl: string

beforeAll(async () => {
  // Sandbox mode: the sidecar registered its own URL with the in-process bank at start.
  sidecar = await startTestSidecar('webhooks_cli', ['receiver'])
  redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null })
  view = new Queue(WEBHOOK_EVENTS_QUEUE, { connection: redis, prefix: sidecar.prefix })
  forwarder = createInboxForwarder({ connection: redis, prefix: sidecar.prefix })
  webhookUrl = `${sidecar.url}/webhooks`
  env = {
    BANK_API_URL: sidecar.context.bank.baseUrl,
    BANK_API_KEY: sidecar.context.bank.sandbox!.apiKey,
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: sidecar.schema,
    LOG_LEVEL: 'silent',
  }
})

afterAll(async () => {
  await sidecar?.close()
  await forwarder?.close()
  await view?.obliterate({ force: true })
  await view?.close()
  redis?.disconnect()
  await sidecar?.drop()
})

/** The stored registration, its secret opened with the sidecar's key; the row itself holds no plaintext. */
async function storedRegistration() {
  const row = await sidecar.context.store.db
    .selectFrom('webhook_registrations')
    .select(['id', 'secret', 'secret_sealed'])
    .where('url', '=', webhookUrl)
    .executeTakeFirstOrThrow()
  const secret = sidecar.context.store.secretBox.open(row.secret_sealed!)
  expect(row.secret).toBeNull()
  expect(row.secret_sealed).not.toContain(secret)
  return { id: row.id, secret }
}

describe('bankrec webhooks register', () => {
  it('updates the registration the sidecar already has for its URL and keeps the secret', async () => {
    const before = await storedRegistration()
    const t = testIo(env)
    expect(await runCli(['webhooks', 'register', '--url', webhookUrl], t.io)).toBe(0)
    expect(t.out()).toContain(`webhook ${before.id} for ${webhookUrl} updated`)
    expect(await storedRegistration()).toEqual(before)
  })

  it('rotates the secret, and the running sidecar accepts the new one without a restart', async () => {
    const old = await storedRegistration()
    const t = testIo(env)
    expect(await runCli(['webhooks', 'register', '--url', webhookUrl, '--rotate'], t.io)).toBe(0)
    const rotated = await storedRegistration()
    expect(rotated.id).not.toBe(old.id)
    expect(rotated.secret).not.toBe(old.secret)
    expect(t.out()).toContain(`replaced webhook ${old.id}`)
    expect(t.out() + t.err()).not.toContain(rotated.secret)

    const { client, sandbox } = sidecar.context.bank
    const registered = []
    for await (const registration of client.webhooks.listAll()) registered.push(registration.id)
    expect(registered).toEqual([rotated.id])

    // The receiver re-reads stored secrets every 5 s.
    await vi.waitFor(() => expect(sidecar.context.webhookSecrets.current()).toContain(rotated.secret), {
      timeout: 10_000,
      interval: 100,
    })
    const { eventId } = await client.webhooks.test(rotated.id)
    await sandbox!.flushWebhooks()
    // A receiver-only sidecar leaves the event in the inbox; forward it as a worker would.
    await vi.waitFor(
      async () => {
        await forwarder.forwardPending()
        expect(await view.getJob(eventId)).toBeDefined()
      },
      { timeout: 5_000 },
    )

    const signedWithOld = signed(JSON.stringify(testEvent()), old.secret)
    const answer = await fetch(webhookUrl, { method: 'POST', ...signedWithOld })
    expect(answer.status).toBe(401)
  })

  it('retires a stored registration the bank no longer lists: its secret is refused', async () => {
    const { db, secretBox } = sidecar.context.store
    const gone = 'whsec_of_a_url_no_longer_registered'
    await saveWebhookRegistration(db, secretBox, {
      id: 'wh_gone',
      url: 'http://127.0.0.1:1/webhooks',
      secret: gone,
    })
    await sidecar.context.webhookSecrets.refresh()
    expect(
      (await fetch(webhookUrl, { method: 'POST', ...signed(JSON.stringify(testEvent()), gone) })).status,
    ).toBe(202)
    const t = testIo(env)
    expect(await runCli(['webhooks', 'register', '--url', webhookUrl], t.io)).toBe(0)
    const ids = await db.selectFrom('webhook_registrations').select('id').execute()
    expect(ids.map((r) => r.id)).not.toContain('wh_gone')
    await sidecar.context.webhookSecrets.refresh()
    expect(
      (await fetch(webhookUrl, { method: 'POST', ...signed(JSON.stringify(testEvent()), gone) })).status,
    ).toBe(401)
  })

  it('needs a bank URL (exit 2): in sandbox mode the sidecar registers itself', async () => {
    const t = testIo({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: sidecar.schema,
    })
    expect(await runCli(['webhooks', 'register', '--url', webhookUrl], t.io)).toBe(2)
    expect(t.err()).toMatch(/needs BANK_API_URL/)
  })

  it('needs --url or PUBLIC_URL (exit 2)', async () => {
    const t = testIo(env)
    expect(await runCli(['webhooks', 'register'], t.io)).toBe(2)
    expect(t.err()).toMatch(/give --url, or set PUBLIC_URL/)
  })

  it('fails with exit 1 when the bank refuses the key, naming no secret', async () => {
    const t = testIo({ ...env, BANK_API_KEY: 'sk_test_wrong_key_0000' })
    expect(await runCli(['webhooks', 'register', '--url', webhookUrl], t.io)).toBe(1)
    expect(t.err()).toMatch(/^bankrec: /m)
    expect(t.err()).not.toContain('sk_test_wrong_key_0000')
  })
})
