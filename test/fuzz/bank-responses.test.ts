import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BankApiError,
  BankConnectionError,
  BankCursorExpiredError,
  BankInvalidCursorError,
  BankNotFoundError,
  BankRateLimitError,
  BankServerError,
  createBankClient,
  ResponseValidationError,
  type BankClient,
} from '../../src/api-client/index.js'
import { runConnectionSync } from '../../src/sync/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'
import { snapshotTables } from '../support/table-snapshot.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

/** A scripted bad answer: written to the raw response by a real node:http server. */
type BadAnswer = {
  name: string
  expected: new (...args: never[]) => BankApiError
  answer: (res: ServerResponse) => void
}

const json =
  (status: number, body: string, type = 'application/json') =>
  (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) })
    res.end(body)
  }
const HTML = '<!doctype html><html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>'

const BAD_ANSWERS: BadAnswer[] = [
  {
    name: '200 with fields of the wrong types',
    expected: ResponseValidationError,
    answer: json(
      200,
      JSON.stringify({ data: 'none', pagination: 5, id: 7, nextCursor: 1, hasMore: 'yes', events: {} }),
    ),
  },
  { name: '200 with required fields missing', expected: ResponseValidationError, answer: json(200, '{}') },
  {
    name: '200 with truncated JSON',
    expected: ResponseValidationError,
    answer: json(200, '{"data":[{"id":"'),
  },
  { name: '200 with an HTML page', expected: ResponseValidationError, answer: json(200, HTML, 'text/html') },
  { name: '200 with an empty body', expected: ResponseValidationError, answer: json(200, '') },
  {
    name: '200 with an error body',
    expected: ResponseValidationError,
    answer: json(200, JSON.stringify({ error: { code: 'internal_error', message: 'oops' } })),
  },
  { name: '200 with JSON null', expected: ResponseValidationError, answer: json(200, 'null') },
  { name: '200 with an array', expected: ResponseValidationError, answer: json(200, '[]') },
  { name: '200 with a 1e400 number', expected: ResponseValidationError, answer: json(200, '{"data":1e400}') },
  {
    name: '200 with a prototype-polluting body',
    expected: ResponseValidationError,
    answer: json(200, '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'),
  },
  {
    name: '200 with a 20 MB body',
    expected: ResponseValidationError,
    answer: json(200, JSON.stringify({ data: 'x'.repeat(20 * 1024 * 1024), events: 'x', pagination: 'x' })),
  },
  {
    name: '200 with the wrong content type and garbage',
    expected: ResponseValidationError,
    answer: json(200, '\u0000\u0001binary', 'application/octet-stream'),
  },
  { name: '502 with an HTML page', expected: BankServerError, answer: json(502, HTML, 'text/html') },
  { name: '500 with truncated JSON', expected: BankServerError, answer: json(500, '{"error":{"code":') },
  { name: '404 with an HTML page', expected: BankNotFoundError, answer: json(404, HTML, 'text/html') },
  {
    name: '429 with a garbage Retry-After',
    expected: BankRateLimitError,
    answer: (res) => {
      res.writeHead(429, { 'retry-after': 'soon', 'content-type': 'text/plain' })
      res.end('slow down')
    },
  },
  {
    name: '418 with an unknown error code',
    expected: BankApiError,
    answer: json(418, JSON.stringify({ error: { code: 'teapot', message: 'I am a teapot', requestId: 7 } })),
  },
  {
    name: 'a connection closed mid-body',
    expected: BankConnectionError,
    answer: (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 })
      res.write('{"data":[')
      res.socket?.destroy()
    },
  },
]

let harness: SandboxHarness
let database: TestDatabase
let proxy: Server
let proxyUrl: string
let connectionId: string
/** One-shot scripted answers: the next request whose path matches gets the bad answer instead of the sandbox's. */
const script: { match: RegExp; answer: (res: ServerResponse) => void }[] = []

async function forward(req: IncomingMessage, res: ServerResponse) {
  const scripted = script.findIndex((s) => s.match.test(req.url ?? ''))
  if (scripted !== -1) {
    return script.splice(scripted, 1)[0]!.answer(res)
  }
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const upstream = await fetch(`${harness.url}${req.url}`, {
    method: req.method,
    headers: Object.fromEntries(
      Object.entries(req.headers).filter(
        ([k]) => k !== 'host' && k !== 'content-length' && k !== 'connection',
      ),
    ) as Record<string, string>,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  })
  const body = Buffer.from(await upstream.arrayBuffer())
  res.writeHead(upstream.status, {
    'content-type': upstream.headers.get('content-type') ?? 'application/json',
    'content-length': body.length,
    ...(upstream.headers.get('request-id') ? { 'request-id': upstream.headers.get('request-id')! } : {}),
  })
  res.end(body)
}

const client = (): BankClient =>
  createBankClient({ baseUrl: proxyUrl, apiKey: harness.apiKey, maxRetries: 0, timeoutMs: 10_000 })

beforeAll(async () => {
  harness = await startSandbox()
  database = await createTestDatabase('bank_responses')
  ;({
    connection: { id: connectionId },
  } = await connectReadyBank(harness))
  proxy = createServer((req, res) => void forward(req, res).catch(() => res.destroy()))
  // Longer than any pause in the test, so the client never reuses a socket the server is closing.
  proxy.keepAliveTimeout = 120_000
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve))
  await harness?.close()
  await database?.drop()
})

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call()
  } catch (error) {
    return error
  }
  return undefined
}

const CALLS: Array<[string, RegExp, (c: BankClient) => Promise<unknown>]> = [
  ['institutions.list', /^\/v1\/institutions/, (c) => c.institutions.list()],
  ['connections.get', /^\/v1\/connections\//, (c) => c.connections.get(connectionId)],
  ['accounts.list', /^\/v1\/accounts/, (c) => c.accounts.list({ connectionId })],
  ['transactions.list', /^\/v1\/transactions\?/, (c) => c.transactions.list({ connectionId })],
  ['transactions.sync', /^\/v1\/transactions\/sync/, (c) => c.transactions.sync({ connectionId })],
]

describe('malformed bank responses', () => {
  it(
    'become typed errors on every resource, never a crash or a plain TypeError',
    { timeout: 120_000 },
    async () => {
      const wrong: string[] = []
      for (const [call, match, run] of CALLS) {
        for (const bad of BAD_ANSWERS) {
          script.push({ match, answer: bad.answer })
          const error = await failure(() => run(client()))
          if (!(error instanceof bad.expected)) {
            wrong.push(
              `${call} ${bad.name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
            )
          } else if (typeof error.code !== 'string' || !error.message) {
            wrong.push(`${call} ${bad.name}: no code or message`)
          }
        }
      }
      expect(script).toEqual([])
      expect(wrong).toEqual([])
    },
  )
})

describe('a sync against a bank that answers badly', () => {
  const deps = () => ({
    db: database.db,
    client: client(),
    clock: harness.sandbox.clock,
    pageSize: 20,
    isCursorExpired: (e: unknown) => e instanceof BankCursorExpiredError,
    isCursorInvalid: (e: unknown) => e instanceof BankInvalidCursorError,
  })
  const tables = () => snapshotTables(database.db, database.schema)

  it('writes nothing when the first call of a new stream is malformed', { timeout: 120_000 }, async () => {
    for (const bad of BAD_ANSWERS) {
      const before = await tables()
      script.push({ match: /^\/v1\/transactions\/sync/, answer: bad.answer })
      expect(await failure(() => runConnectionSync(deps(), connectionId)), bad.name).toBeInstanceOf(
        BankApiError,
      )
      expect(await tables(), bad.name).toEqual(before)
    }
  })

  it(
    'writes no transaction when a backfill page is malformed, and recovers on the next run',
    { timeout: 120_000 },
    async () => {
      for (const bad of BAD_ANSWERS) {
        const before = await snapshotTables(database.db, database.schema)
        script.push({ match: /^\/v1\/transactions\?/, answer: bad.answer })
        expect(await failure(() => runConnectionSync(deps(), connectionId)), bad.name).toBeInstanceOf(
          BankApiError,
        )
        const after = await snapshotTables(database.db, database.schema)
        // Only the stream's head may be noted (seed rule 5 saves it before the backfill); no mirror row.
        const changed = Object.keys(after).filter((t) => after[t] !== before[t] && t !== 'sync_streams')
        expect(changed, bad.name).toEqual([])
      }
      await runConnectionSync(deps(), connectionId)
      const rows = await database.db
        .selectFrom('transactions')
        .select('id')
        .where('connection_id', '=', connectionId)
        .execute()
      expect(rows.length).toBeGreaterThan(0)
    },
  )

  it('keeps the mirror and its cursor when a streaming page is malformed', { timeout: 120_000 }, async () => {
    await runConnectionSync(deps(), connectionId)
    await harness.sandbox.advance(3 * 24 * 3600)
    for (const bad of BAD_ANSWERS) {
      const before = await snapshotTables(database.db, database.schema)
      script.push({ match: /^\/v1\/transactions\/sync/, answer: bad.answer })
      expect(await failure(() => runConnectionSync(deps(), connectionId)), bad.name).toBeInstanceOf(
        BankApiError,
      )
      expect(await snapshotTables(database.db, database.schema), bad.name).toEqual(before)
    }
    const result = await runConnectionSync(deps(), connectionId)
    expect(result.pagesApplied).toBeGreaterThan(0)
  })
})

describe('the scripting server', () => {
  it('passes good answers through unchanged', async () => {
    const page = await client().institutions.list()
    expect(page.data.length).toBeGreaterThan(0)
  })
})
