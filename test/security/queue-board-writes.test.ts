import type { Queue } from 'bullmq'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WEBHOOK_EVENTS_QUEUE } from '../../src/queue/index.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'

/**
 * Finding 5 (docs/security.md): the dashboard cookie wrote through bull-board. A session could add a forged
 * connection.status_changed job to webhook-events (an incident the bank never signed) or empty the queue of
 * accepted events.
 */
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let events: Queue
let cookie: string
let viewerToken: string

const FORGED = {
  name: 'evt_forged',
  data: {
    eventId: 'evt_forged',
    event: {
      id: 'evt_forged',
      type: 'connection.status_changed',
      createdAt: '2026-03-02T09:00:00Z',
      data: { connectionId: '00000000-0000-4000-8000-000000000001', status: 'revoked' },
    },
  },
  options: {},
}

async function board(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${sidecar.url}/admin/queues${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text.startsWith('{') ? (JSON.parse(text) as any) : text }
}

const jobs = async () => (await events.getJobs(['waiting', 'delayed', 'failed'])).map((j) => j.id)

beforeAll(async () => {
  // No worker role: whatever lands in webhook-events stays there to be counted.
  sidecar = await startTestSidecar('board_writes', ['api'])
  events = sidecar.context.queues.find((queue) => queue.name === WEBHOOK_EVENTS_QUEUE)!
  await events.add('evt_accepted', { eventId: 'evt_accepted' }, { jobId: 'evt_accepted', delay: 3_600_000 })
  const signIn = await fetch(`${sidecar.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url },
    body: new URLSearchParams({ token: API_TOKEN }).toString(),
  })
  cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
  const viewer = await fetch(`${sidecar.url}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'vera', role: 'viewer' }),
  })
  viewerToken = ((await viewer.json()) as { token: string }).token
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('the queue board with the session cookie', () => {
  it('refuses adding a forged webhook event, even to the built-in admin’s session', async () => {
    const answer = await board('POST', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/add`, { cookie }, FORGED)
    expect(answer.status).toBe(403)
    expect(answer.body.error.message).toContain('read-only in the browser')
    expect(await jobs()).toEqual(['evt_accepted'])
  })

  it('refuses emptying, cleaning, pausing or obliterating a queue of accepted events', async () => {
    for (const [method, path] of [
      ['PUT', 'empty'],
      ['PUT', 'clean/delayed'],
      ['PUT', 'pause'],
      ['PUT', 'obliterate'],
      ['PUT', 'evt_accepted/clean'],
      ['PUT', 'evt_accepted/promote'],
    ] as const) {
      expect(
        (await board(method, `/api/queues/${WEBHOOK_EVENTS_QUEUE}/${path}`, { cookie })).status,
        path,
      ).toBe(403)
    }
    expect((await board('PUT', '/api/queues/pause', { cookie })).status).toBe(403)
    expect(await jobs()).toEqual(['evt_accepted'])
    expect(await events.isPaused()).toBe(false)
  })

  it('is served read-only: the board shows no action that would change a queue', async () => {
    const answer = await board('GET', '/api/queues', { cookie })
    expect(answer.status).toBe(200)
    const queues = answer.body.queues as Array<{ name: string; readOnlyMode: boolean }>
    expect(queues.length).toBeGreaterThanOrEqual(3)
    expect(queues.every((queue) => queue.readOnlyMode)).toBe(true)
  })
})

describe('the queue board with a Bearer token', () => {
  it('refuses writes to a viewer’s token, and lets it read', async () => {
    const headers = { authorization: `Bearer ${viewerToken}` }
    expect((await board('GET', '/api/queues', headers)).status).toBe(200)
    expect((await board('PUT', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/empty`, headers)).status).toBe(403)
    expect(await jobs()).toEqual(['evt_accepted'])
  })

  it('lets an admin token change a queue, but never add or edit a job of webhook-events', async () => {
    const headers = { authorization: `Bearer ${API_TOKEN}` }
    const listed = await board('GET', '/api/queues', headers)
    expect((listed.body.queues as Array<{ readOnlyMode: boolean }>).some((q) => q.readOnlyMode)).toBe(false)
    expect((await board('PUT', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/pause`, headers)).status).toBe(200)
    expect(await events.isPaused()).toBe(true)
    expect((await board('PUT', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/resume`, headers)).status).toBe(200)

    const added = await board('POST', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/add`, headers, FORGED)
    expect(added.status).toBe(403)
    expect(added.body.error.message).toContain('only takes events the receiver verified')
    const edited = await board(
      'PATCH',
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/evt_accepted/update-data`,
      headers,
      {
        data: FORGED.data,
      },
    )
    expect(edited.status).toBe(403)
    expect(await jobs()).toEqual(['evt_accepted'])
    expect((await events.getJob('evt_accepted'))!.data).toEqual({ eventId: 'evt_accepted' })
  })
})

describe('the guard against forged webhook-events jobs (issue 26)', () => {
  it('refuses every spelling of adding or editing a webhook-events job: case, trailing and double slashes, percent-encoding', async () => {
    const headers = { authorization: `Bearer ${API_TOKEN}` }
    const adds = [
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/ADD`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/Add`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/add/`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}//add`,
      `//api/queues/${WEBHOOK_EVENTS_QUEUE}/add`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/%61dd`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE.replace('-', '%2D')}/add`,
      `/API/Queues/${WEBHOOK_EVENTS_QUEUE}/add`,
      `/api/queues/${WEBHOOK_EVENTS_QUEUE}/%E0%A4%A/add`,
    ]
    for (const path of adds) {
      const answer = await board('POST', path, headers, FORGED)
      expect(answer.status, path).toBe(403)
    }
    for (const path of [
      'evt_accepted/UPDATE-DATA',
      'evt_accepted/update-data/',
      'evt_accepted/Update-Data',
    ]) {
      const answer = await board('PATCH', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/${path}`, headers, {
        data: FORGED.data,
      })
      expect(answer.status, path).toBe(403)
    }
    expect(await jobs()).toEqual(['evt_accepted'])
    expect((await events.getJob('evt_accepted'))!.data).toEqual({ eventId: 'evt_accepted' })
    // Control: the same spellings of what an admin may do still work (pausing, resuming).
    expect((await board('PUT', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/PAUSE/`, headers)).status).toBe(200)
    expect(await events.isPaused()).toBe(true)
    expect((await board('PUT', `/api/queues/${WEBHOOK_EVENTS_QUEUE}/Resume`, headers)).status).toBe(200)
    expect(await events.isPaused()).toBe(false)
  })
})
