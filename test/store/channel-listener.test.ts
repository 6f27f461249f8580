import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createChannelListener, type ChannelListenerOptions } from '../../src/store/index.js'
import { TEST_DATABASE_URL } from '../support/test-database.js'

// The LISTEN connection shared by the webhook inbox forwarder and the app-event dispatcher
// (src/store/channel-listener.ts), on real PostgreSQL: it hears, comes back after its session is killed, and
// closes without leaving a socket or a timer behind.

let admin: pg.Client
beforeAll(async () => {
  admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
})
afterAll(async () => {
  await admin?.end()
})

/** Callbacks as a stream of events the test awaits, in order, with no sleeps. */
function recorder() {
  const events: string[] = []
  const waiters: { match: (event: string) => boolean; resolve: () => void }[] = []
  const record = (event: string) => {
    events.push(event)
    for (const waiter of waiters.filter((w) => w.match(event))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  return {
    events,
    record,
    /** Resolves when an event starting with `prefix` has been recorded after the `seen`-th one. */
    next(prefix: string, seen = events.length): Promise<void> {
      if (events.slice(seen).some((e) => e.startsWith(prefix))) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ match: (e) => e.startsWith(prefix), resolve }))
    },
  }
}

function newChannel(): string {
  return `test_listener_${randomBytes(4).toString('hex')}`
}

async function notify(channel: string, payload: string): Promise<void> {
  await admin.query('select pg_notify($1, $2)', [channel, payload])
}

/**
 * Ends a session and waits until its process has gone: without a timeout pg_terminate_backend only signals it, and
 * the session's row stays in pg_stat_activity until the process exits, after its client has seen the socket close.
 */
async function terminate(pid: number | undefined): Promise<void> {
  const { rows } = await admin.query<{ ended: boolean }>('select pg_terminate_backend($1, 10000) as ended', [
    pid,
  ])
  expect(rows[0]?.ended).toBe(true)
}

/** The sessions listening on `channel`, by their last statement (pg_listening_channels() sees only its own). */
async function listenerPids(channel: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    'select pid from pg_stat_activity where query = $1 and pid <> pg_backend_pid()',
    [`listen ${channel}`],
  )
  return rows.map((r) => r.pid)
}

/** What keeps the event loop alive, by kind (unref'd timers are left out). */
function activeHandles(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}

/** The timers of `delayMs` set from now on, and which of them are neither cleared nor run yet. */
function reconnectionTimers(delayMs: number) {
  const timers = new Set<NodeJS.Timeout>()
  const set = vi.spyOn(globalThis, 'setTimeout')
  const clear = vi.spyOn(globalThis, 'clearTimeout')
  return {
    pending(): NodeJS.Timeout[] {
      set.mock.calls.forEach(([, delay], i) => {
        if (delay === delayMs) timers.add(set.mock.results[i]!.value as NodeJS.Timeout)
      })
      const cleared = new Set(clear.mock.calls.map(([timer]) => timer))
      return [...timers].filter((timer) => !cleared.has(timer))
    },
    restore() {
      set.mockRestore()
      clear.mockRestore()
    },
  }
}

function listenerOn(
  channel: string,
  log: ReturnType<typeof recorder>,
  extra: Partial<ChannelListenerOptions> = {},
) {
  return createChannelListener({
    connectionString: TEST_DATABASE_URL,
    channel,
    onNotification: (payload) => log.record(`notification ${payload}`),
    onListening: () => log.record('listening'),
    onError: (error, phase) => log.record(`error ${phase}: ${error.message}`),
    reconnectDelayMs: 20,
    ...extra,
  })
}

describe('channel listener', () => {
  it('hears a notification, and hears again after its session is terminated', async () => {
    const channel = newChannel()
    const log = recorder()
    const listener = listenerOn(channel, log)
    try {
      await listener.start()
      expect(log.events).toEqual(['listening'])

      const heard = log.next('notification one')
      await notify(channel, 'one')
      await heard

      const [pid, ...others] = await listenerPids(channel)
      expect(others).toEqual([])
      const seen = log.events.length
      await terminate(pid)
      await log.next('listening', seen)
      // Reported once, as a lost connection, though pg emits both 'error' and 'end' for it.
      expect(log.events.slice(seen)).toEqual([
        'error lost: terminating connection due to administrator command',
        'listening',
      ])
      expect(await listenerPids(channel)).not.toContain(pid)

      const heardAgain = log.next('notification two')
      await notify(channel, 'two')
      await heardAgain
      expect(log.events.filter((e) => e.startsWith('notification'))).toEqual([
        'notification one',
        'notification two',
      ])
    } finally {
      await listener.close()
    }
  })

  it('ignores the other channels of the database', async () => {
    const channel = newChannel()
    const log = recorder()
    const listener = listenerOn(channel, log)
    try {
      await listener.start()
      const heard = log.next('notification mine')
      await notify(`${channel}_other`, 'other')
      await notify(channel, 'mine')
      await heard
      expect(log.events).toEqual(['listening', 'notification mine'])
    } finally {
      await listener.close()
    }
  })

  it('refuses a channel name that LISTEN would fold or need quoted', () => {
    for (const channel of ['Upper', 'has space', 'semi;colon', ''])
      expect(() => listenerOn(channel, recorder())).toThrow(/plain lower-case identifier/)
  })

  it('treats a failed catch-up as a failed attempt: reports it and tries again', async () => {
    const channel = newChannel()
    const log = recorder()
    let catchUps = 0
    const listener = listenerOn(channel, log, {
      onListening: () => {
        if (++catchUps === 1) throw new Error('catch-up failed')
        log.record('listening')
      },
    })
    try {
      await listener.start()
      await log.next('listening')
      expect(log.events).toEqual(['error connect: catch-up failed', 'listening'])
      // The failed attempt's session was ended: one session listens.
      expect(await listenerPids(channel)).toHaveLength(1)
    } finally {
      await listener.close()
    }
  })

  it('with firstFailure reject, rejects start() and retries nothing', async () => {
    const log = recorder()
    const sockets = activeHandles().TCPSocketWrap ?? 0
    const listener = listenerOn(newChannel(), log, {
      connectionString: 'postgres://postgres@127.0.0.1:1/test',
      firstFailure: 'reject',
      reconnectDelayMs: 600_000,
    })
    const waits = reconnectionTimers(600_000)
    try {
      await expect(listener.start()).rejects.toThrow(/ECONNREFUSED/)
      expect(log.events).toEqual([])
      expect(waits.pending()).toEqual([])
      expect(activeHandles().TCPSocketWrap ?? 0).toBe(sockets)
    } finally {
      await listener.close()
      waits.restore()
    }
  })

  it('closes without an open socket or timer, also while it waits to reconnect', async () => {
    const sockets = activeHandles().TCPSocketWrap ?? 0
    const channel = newChannel()
    const log = recorder()
    // A long delay, so close() comes while the reconnection timer is pending.
    const listener = listenerOn(channel, log, { reconnectDelayMs: 600_000 })
    const waits = reconnectionTimers(600_000)
    try {
      await listener.start()
      expect(activeHandles().TCPSocketWrap).toBe(sockets + 1)
      const [pid] = await listenerPids(channel)
      const lost = log.next('error lost')
      await terminate(pid)
      await lost
      expect(waits.pending()).toHaveLength(1)

      await listener.close()
      expect(waits.pending()).toEqual([])
      expect(activeHandles().TCPSocketWrap ?? 0).toBe(sockets)
      expect(await listenerPids(channel)).toEqual([])
      expect(log.events).toEqual([
        'listening',
        'error lost: terminating connection due to administrator command',
      ])
    } finally {
      waits.restore()
    }
  })

  it('with unref, its wait to reconnect does not keep the process alive', async () => {
    const channel = newChannel()
    const log = recorder()
    const listener = listenerOn(channel, log, { reconnectDelayMs: 600_000, unref: true })
    const waits = reconnectionTimers(600_000)
    try {
      await listener.start()
      const [pid] = await listenerPids(channel)
      const lost = log.next('error lost')
      await terminate(pid)
      await lost
      expect(waits.pending().map((timer) => timer.hasRef())).toEqual([false])
    } finally {
      await listener.close()
      waits.restore()
    }
  })
})
