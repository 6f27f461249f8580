import { randomUUID } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../src/observability/index.js'
import { syncJobId } from '../../src/queue/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { onboardSandboxConnection } from '../support/onboard-sandbox-connection.js'
import { dropSidecarSchemas } from '../support/test-database.js'

/** Finding 12: sync jobs only for connections, and no retries of what cannot succeed; on both queue backends. */
describe.each([
  ['Redis', {}],
  ['PostgreSQL', { REDIS_URL: '' }],
])('syncing an id that is no connection, on the %s queue', (_backend, env) => {
  let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
  let logs = ''

  beforeAll(async () => {
    const capture = new PassThrough()
    capture.on('data', (chunk) => (logs += chunk))
    sidecar = await startTestSidecar('sync_unknown', ['receiver', 'worker', 'api'], env, {
      logger: createLogger({ level: 'warn', destination: capture }),
    })
  }, 60_000)

  afterAll(async () => {
    await sidecar?.close()
    await dropSidecarSchemas(sidecar.schema)
  })

  const queued = async (connectionId: string) =>
    (await sidecar.context.syncQueue.getJob(syncJobId(connectionId))) !== undefined
  const requests = async (connectionId: string) =>
    sidecar.context.store.db
      .selectFrom('sync_requests')
      .selectAll()
      .where('connection_id', '=', connectionId)
      .execute()

  it('answers 404 on the API and queues nothing for an id the bank does not know', async () => {
    for (const id of [randomUUID(), 'not-a-connection']) {
      const answer = await fetch(`${sidecar.url}/api/connections/${id}/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_TOKEN}` },
      })
      expect(answer.status).toBe(404)
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('not_found')
      expect(await queued(id)).toBe(false)
      expect(await requests(id)).toEqual([])
    }
  })

  it('answers the dashboard sync action with an error notice and queues nothing', async () => {
    const login = await fetch(`${sidecar.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
      body: new URLSearchParams({ token: API_TOKEN, next: '/dashboard' }).toString(),
    })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    const id = randomUUID()
    const answer = await fetch(`${sidecar.url}/dashboard/connections/${id}/sync`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: sidecar.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'back=/dashboard',
    })
    expect(answer.status).toBe(303)
    const page = await fetch(new URL(answer.headers.get('location')!, sidecar.url), {
      headers: {
        cookie: [cookie, answer.headers.get('set-cookie')?.split(';')[0]].filter(Boolean).join('; '),
      },
    })
    expect(await page.text()).toContain(`No connection ${id} at the bank; nothing queued.`)
    expect(await queued(id)).toBe(false)
  })

  it('still syncs a connection the mirror has not seen yet, asking the bank once', async () => {
    const { id } = await onboardSandboxConnection(sidecar.context.bank)
    const { db } = sidecar.context.store
    // As if the connection were created at the bank a moment ago and no event had told bankrec yet.
    await vi.waitFor(async () => expect(await requests(id)).not.toEqual([]), { timeout: 20_000 })
    await db.deleteFrom('connections').where('id', '=', id).execute()
    const answer = await fetch(`${sidecar.url}/api/connections/${id}/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    })
    expect(answer.status).toBe(202)
    const row = await db.selectFrom('connections').select('status').where('id', '=', id).executeTakeFirst()
    expect(row?.status).toBe('active')
  })

  it('fails a sync job of an id that is no connection once, without retries', async () => {
    // A job queued before validation existed (or by hand): the worker gives up at the first unrecoverable answer.
    for (const id of ['not-a-uuid', randomUUID()]) {
      await sidecar.context.requestSync(id, 'test')
      await vi.waitFor(() => expect(logs).toContain(`"jobId":"${syncJobId(id)}"`), { timeout: 20_000 })
      // Failed for good (removed on fail) rather than delayed for another attempt.
      expect(await queued(id)).toBe(false)
      expect(logs.split(`"jobId":"${syncJobId(id)}"`)).toHaveLength(2)
    }
  })
})
