import pg from 'pg'

export type ChannelListenerOptions = {
  /** Of the dedicated connection, which stays open outside any pool. */
  connectionString: string
  /**
   * A plain lower-case identifier, sent unquoted, so `LISTEN name` and `pg_notify('name', …)` agree on it; anything
   * else throws.
   */
  channel: string
  /** Each notification on the channel, in the order PostgreSQL delivers them. */
  onNotification: (payload: string | undefined) => void
  /**
   * Runs after each LISTEN is in place, the first and every reconnection, to catch up on what was notified while
   * nobody listened. It is part of the attempt: a rejection ends the connection and counts as a failed one.
   */
  onListening?: () => void | Promise<unknown>
  /**
   * Each error, followed by a new attempt after `reconnectDelayMs`: `lost` when a connection that was listening
   * failed or ended, `connect` when an attempt to listen (connect, LISTEN, onListening) failed. @defaultValue ignore
   */
  onError?: (error: Error, phase: 'lost' | 'connect') => void
  /** Between a failure and the next attempt. */
  reconnectDelayMs: number
  /** Whether the wait before a reconnection lets the process exit. @defaultValue false */
  unref?: boolean
  /**
   * What a failed first attempt does: `retry` reports it and tries again, as after any failure; `reject` rejects
   * start() and tries no more, for a caller that must not start without its listener. @defaultValue 'retry'
   */
  firstFailure?: 'retry' | 'reject'
}

export type ChannelListener = {
  /**
   * Makes the first attempt; settles when it has succeeded or failed (with `firstFailure: 'retry'` it resolves
   * either way, a retry being under way).
   */
  start(): Promise<void>
  /** Ends the connection and any attempt or wait for one; nothing is retried or called back afterwards. */
  close(): Promise<void>
}

const PLAIN_CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * A pg.Client of its own that LISTENs on one channel and comes back after an error or an end, for callers that
 * hear another process's commits (the webhook inbox forwarder, the app-event dispatcher). A pooled connection
 * would not do: LISTEN belongs to a session, and the pool hands sessions around.
 */
export function createChannelListener(options: ChannelListenerOptions): ChannelListener {
  const { channel } = options
  if (!PLAIN_CHANNEL.test(channel)) {
    throw new Error(
      `Channel name ${JSON.stringify(channel)} is not a plain lower-case identifier; use [a-z0-9_].`,
    )
  }
  const onError = options.onError ?? (() => undefined)
  let closed = false
  // The connection listening, or being made to.
  let client: pg.Client | undefined
  let attempt: Promise<void> | undefined
  let reconnect: NodeJS.Timeout | undefined
  // The end of a connection dropped after a loss, which close() waits for too.
  let dropped: Promise<void> | undefined

  const retryLater = () => {
    if (closed || reconnect) return
    reconnect = setTimeout(() => {
      reconnect = undefined
      void tryListen()
    }, options.reconnectDelayMs)
    if (options.unref) reconnect.unref()
  }

  const listen = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.connectionString })
    client = next
    let listening = false
    let lostWhileConnecting: Error | undefined
    // pg emits 'error' and then 'end' for a dropped connection: the first one to come is reported, once.
    const lost = (error: Error) => {
      if (!listening) {
        lostWhileConnecting ??= error
        return
      }
      if (client !== next || closed) return
      client = undefined
      dropped = next.end().catch(() => undefined)
      onError(error, 'lost')
      retryLater()
    }
    next.on('error', lost)
    next.on('end', () => lost(new Error(`The connection listening on ${channel} ended.`)))
    next.on('notification', (message) => {
      if (message.channel === channel && !closed) options.onNotification(message.payload)
    })
    try {
      await next.connect()
      await next.query(`listen ${channel}`)
      await options.onListening?.()
      if (lostWhileConnecting) throw lostWhileConnecting
      listening = true
    } catch (error) {
      if (client === next) client = undefined
      await next.end().catch(() => undefined)
      throw error
    }
  }

  // One attempt at a time: a retry is only scheduled by a failure, and close() awaits the attempt under way.
  const tryListen = (): Promise<void> =>
    (attempt = listen()
      .catch((error: unknown) => {
        if (closed) return
        onError(error as Error, 'connect')
        retryLater()
      })
      .finally(() => (attempt = undefined)))

  return {
    start() {
      if (options.firstFailure !== 'reject') return tryListen()
      return (attempt = listen().finally(() => (attempt = undefined)))
    },
    async close() {
      closed = true
      clearTimeout(reconnect)
      reconnect = undefined
      const current = client
      client = undefined
      await current?.end().catch(() => undefined)
      await attempt?.catch(() => undefined)
      await dropped
    },
  }
}
