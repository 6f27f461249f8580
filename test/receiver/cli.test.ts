import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { testIo } from '../cli/test-io.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { REDIS_URL, SECRET, inspectQueue, signed, testEvent, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('cli')
const view = inspectQueue(prefix)
const schema = `test_receiver_cli_${randomBytes(4).toString('hex')}`

/** The receiver role needs no bank; a closed loopback port keeps sandbox mode (and any traffic) out of it. */
const baseEnv = {
  DATABASE_URL: TEST_DATABASE_URL,
  BANKREC_SECRET_KEY: TEST_SECRET_KEY,
  BANKREC_SCHEMA: schema,
  BANK_API_URL: 'http://127.0.0.1:9',
  BANK_API_KEY: 'unused-by-the-receiver',
  WEBHOOK_SECRETS: `whsec_next,${SECRET}`,
  PORT: '0',
  LOG_LEVEL: 'warn',
}

afterAll(async () => {
  await view.close()
  await dropSidecarSchemas(schema)
})

async function deliverOne(env: Record<string, string>) {
  const t = testIo(env)
  const exit = runCli(['receiver'], t.io)
  const [, url] = await Promise.race([
    t.waitForOutput(/listening on (\S+)/),
    exit.then((code) => Promise.reject(new Error(`receiver exited ${code}: ${t.err()}`))),
  ])
  const event = testEvent()
  const { body, headers } = signed(JSON.stringify(event))
  const status = (await fetch(url!, { method: 'POST', body, headers })).status
  t.stop()
  return { status, event, exit: await exit, t }
}

describe('bankrec receiver', () => {
  it('serves signed deliveries into the Redis queue named by the environment until stopped', async () => {
    const { status, event, exit, t } = await deliverOne({ ...baseEnv, REDIS_URL, QUEUE_PREFIX: prefix })
    expect(status).toBe(202)
    // The receiver role only appends to the inbox; a worker would forward it into the queue.
    await view.forward()
    expect(await view.queue.getJob(event.id as string)).toBeDefined()
    expect(exit).toBe(0)
    expect(t.out() + t.err()).not.toContain(SECRET)
  })

  it('queues in PostgreSQL when REDIS_URL is unset', async () => {
    const { status, event, exit } = await deliverOne(baseEnv)
    expect(status).toBe(202)
    expect(exit).toBe(0)
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await client.connect()
    const row = await client.query(`select event_id from ${schema}.received_events where event_id = $1`, [
      event.id,
    ])
    await client.end()
    expect(row.rowCount).toBe(1)
  })

  it('refuses to start with every configuration problem listed, exit 2', async () => {
    const t = testIo({ PORT: 'eighty', WEBHOOK_SECRETS: 'whsec_x,', REDIS_URL: 'http://127.0.0.1' })
    expect(await runCli(['receiver'], t.io)).toBe(2)
    expect(t.err()).toMatch(/PORT must be a whole number/)
    expect(t.err()).toMatch(/WEBHOOK_SECRETS must not contain an empty item/)
    expect(t.err()).toMatch(/REDIS_URL must be a redis/)
    expect(t.err()).not.toContain('whsec_x')
  })
})
