/**
 * The minimal correct receiver, the baseline of `npm run bench:receiver`: one node:http process that reads the
 * raw body with a 256 KiB cap, verifies the HMAC in constant time, parses the JSON and answers 2xx only after a
 * durable write group-committed per event-loop turn: on Redis `SET NX` dedupe + `RPUSH` to an inbox (one script
 * call per turn), on PostgreSQL one `INSERT … ON CONFLICT DO NOTHING` per turn. Run as its own process:
 *
 *   MINIMAL_QUEUE=redis|postgres MINIMAL_SECRET=… [REDIS_URL MINIMAL_PREFIX | DATABASE_URL MINIMAL_TABLE] PORT=0
 *
 * It prints `minimal receiver listening on http://127.0.0.1:<port>` once it serves, and stops on SIGTERM.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPostgresInbox, createRedisInbox } from './durable-inbox.js'
import { createMinimalDelivery, readCappedBody } from './handler.js'

const env = process.env
const secret = env.MINIMAL_SECRET ?? ''
if (!secret) throw new Error('MINIMAL_SECRET is required')
const inbox =
  env.MINIMAL_QUEUE === 'postgres'
    ? createPostgresInbox(env.DATABASE_URL ?? '', env.MINIMAL_TABLE ?? 'minimal_inbox')
    : createRedisInbox(env.REDIS_URL ?? 'redis://127.0.0.1:6379', env.MINIMAL_PREFIX ?? 'minimal')
const deliver = createMinimalDelivery(secret, inbox)

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') {
    res.writeHead(404, { 'content-length': 0 })
    res.end()
    return
  }
  readCappedBody(req, res, (body) => deliver(req, res, body))
})
server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  process.stdout.write(`minimal receiver listening on http://127.0.0.1:${port}\n`)
})
process.once('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  void inbox.close().then(() => process.exit(0))
})
