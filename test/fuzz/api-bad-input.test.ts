import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { listRoutes, type AppRoute } from '../support/express-routes.js'
import { snapshotTables } from '../support/table-snapshot.js'

type Case = {
  name: string
  /** Concrete path; defaults to the route's pattern with every parameter a harmless id. */
  path?: string
  query?: string
  /** JSON-encoded unless `raw`. */
  body?: unknown
  raw?: string
  contentType?: string
  headers?: Record<string, string>
  /** A word the error's message or details must name. */
  names?: string
}

const LONG = 'x'.repeat(100_000)
const INJECTIONS = [
  "'; drop table transactions; --",
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  'a\u0000b',
  '\u202egnp.exe\u200b𝔘',
  '${jndi:ldap://127.0.0.1/x}',
]
const ODD_IDS = [
  encodeURIComponent("'; drop table invoices; --"),
  '..%2F..%2Fetc%2Fpasswd',
  '%2E%2E',
  'a%00b',
  '%3Cscript%3E',
  'x'.repeat(5_000),
  '%F0%9D%94%98%E2%80%AE',
]
const HUGE = `1${'0'.repeat(400)}`
const BAD_DECIMALS: unknown[] = [
  HUGE,
  '1e400',
  'NaN',
  'Infinity',
  '-5.00',
  '0x10',
  '1,000.00',
  '12.5.0',
  '',
  12.5,
  null,
]
/** An empty date means no date (null) for invoices, so it is not among these. */
const BAD_DATES = ['2026-02-30', '2026-13-01', '26-03-01', '2026-03-01T25:00:00Z', 'yesterday']
const MALFORMED_JSON = ['{"a":', '{a:1}', "{'a':1}", '[1,]', '{"a":1}}', 'null', '"text"', '1e400']

const ids = (route: string): Case[] =>
  ODD_IDS.map((id) => ({ name: `odd id ${id.slice(0, 20)}`, path: route.replace(/:\w+/, id) }))
const queries = (names: string, values: readonly string[]): Case[] =>
  values.map((value) => ({
    name: `${names}=${value.slice(0, 20)}`,
    query: `${names}=${encodeURIComponent(value)}`,
    names,
  }))
const malformed = (extra: Partial<Case> = {}): Case[] =>
  MALFORMED_JSON.map((raw) => ({
    name: `malformed JSON ${raw}`,
    raw,
    contentType: 'application/json',
    ...extra,
  }))

const invoice = (overrides: Record<string, unknown>) => ({
  number: 'INV-1',
  amount: '100.00',
  currency: 'EUR',
  ...overrides,
})
const csv = (rows: string[]) => ['id,number,amount,currency,dueDate', ...rows].join('\n')
const transfer = (overrides: Record<string, unknown>) => ({
  type: 'internal',
  transferType: 'internal',
  clientReference: 'INV-1',
  amount: { type: 'money', value: '10.00', currency: 'EUR' },
  sourceAccountId: randomUUID(),
  destination: { type: 'account', accountId: randomUUID() },
  ...overrides,
})

/**
 * Bad input for every /api route, by `METHOD /path`. A route the router has and this table lacks fails the test,
 * so a new route arrives with its cases.
 */
const CASES: Record<string, Case[]> = {
  'GET /api/connections': [{ name: 'an unknown filter is ignored: nothing to refuse', query: 'x=1' }].slice(
    1,
  ),
  'POST /api/connections': [
    ...malformed(),
    { name: 'no body', body: {}, names: 'entityId' },
    {
      name: 'entityId of the wrong type',
      body: { entityId: 5, institutionId: 'ins_harbor_national' },
      names: 'entityId',
    },
    ...INJECTIONS.map((s) => ({
      name: `entityId ${s}`,
      body: { entityId: s, institutionId: s },
      // Text PostgreSQL cannot store is refused first, naming the field it found it in.
      names: s.includes('\u0000') ? 'institutionId' : 'entityId',
    })),
    { name: 'a 100k-char institution', body: { entityId: LONG, institutionId: LONG }, names: 'entityId' },
    {
      name: 'portalUrl not https',
      body: { entityId: randomUUID(), portalUrl: 'javascript:alert(1)' },
      names: 'portalUrl',
    },
    { name: 'an array body', body: [{ entityId: randomUUID() }] },
  ],
  'GET /api/connections/:id': ids('/api/connections/:id'),
  'PUT /api/connections/:id/credentials': [
    ...ids('/api/connections/:id/credentials').map((c) => ({ ...c, body: { password: 'hunter2' } })),
    ...malformed({ path: `/api/connections/${randomUUID()}/credentials` }),
    { name: 'password of the wrong type', body: { password: 5 }, names: 'password' },
    { name: 'a 100k-char password', body: { password: LONG }, names: 'password' },
    { name: 'an empty password', body: { password: '' }, names: 'password' },
  ],
  'PUT /api/connections/:id/setupCompletion': ids('/api/connections/:id/setupCompletion'),
  'POST /api/connections/:id/sync': ids('/api/connections/:id/sync'),
  'GET /api/overview': [],
  'GET /api/transactions': [
    ...queries('connectionId', INJECTIONS),
    ...queries('accountId', ['1', LONG.slice(0, 5000)]),
    ...queries('limit', ['0', '-1', '501', '1e400', 'abc', '1.5']),
    ...queries('cursor', [...INJECTIONS, 'mc_e30']),
  ],
  'GET /api/accounts': [...queries('connectionId', INJECTIONS), ...queries('limit', ['0', '1e400'])],
  'GET /api/balance-proof': [
    ...queries('dateGte', BAD_DATES),
    { name: 'dateLt before dateGte', query: 'dateGte=2026-03-02&dateLt=2026-03-01', names: 'dateLt' },
    ...queries('accountId', INJECTIONS),
  ],
  'POST /api/transfers': [
    ...malformed(),
    { name: 'no body', body: {} },
    // A well-formed amount however large goes to the bank, which decides; the attempt is recorded (docs/transfers.md).
    ...BAD_DECIMALS.filter((value) => value !== HUGE).map((value) => ({
      name: `amount ${String(value).slice(0, 20)}`,
      body: transfer({ amount: { type: 'money', value, currency: 'EUR' } }),
      names: 'amount',
    })),
    {
      name: 'amount as a number 1e400',
      raw: JSON.stringify(transfer({})).replace('"10.00"', '1e400'),
      contentType: 'application/json',
      names: 'amount',
    },
    ...INJECTIONS.map((s) => ({
      name: `account ${s}`,
      body: transfer({ sourceAccountId: s }),
      names: 'sourceAccountId',
    })),
    { name: 'an unknown type', body: transfer({ type: 'wire' }), names: 'type' },
    {
      name: 'an Idempotency-Key too long',
      body: transfer({}),
      headers: { 'idempotency-key': 'k'.repeat(300) },
    },
  ],
  'GET /api/transfers': [
    ...queries('status', INJECTIONS),
    ...queries('accountId', INJECTIONS),
    ...queries('limit', ['0', '501', '1e400']),
    ...queries('cursor', INJECTIONS),
  ],
  'GET /api/transfers/:id': ids('/api/transfers/:id'),
  'POST /api/transfers/:id/retry': ids('/api/transfers/:id/retry'),
  'GET /api/exceptions': [
    ...queries('transactionId', ['not-a-uuid', ...INJECTIONS]),
    ...queries('type', INJECTIONS),
    ...queries('state', ['closed', '']),
    ...queries('limit', ['0', '1e400']),
    ...queries('cursor', INJECTIONS),
  ],
  'POST /api/exceptions/:key/accept': [...ids('/api/exceptions/:key/accept')],
  'POST /api/exceptions/:key/reject': [...ids('/api/exceptions/:key/reject')],
  'GET /api/allocations': [
    ...queries('transactionId', INJECTIONS),
    ...queries('includeReversed', ['yes', '1']),
    ...queries('cursor', INJECTIONS),
  ],
  'POST /api/allocations': [
    ...malformed(),
    ...INJECTIONS.map((s) => ({
      name: `transactionId ${s}`,
      body: { transactionId: s, invoiceId: 'INV-1' },
      names: 'transactionId',
    })),
    ...BAD_DECIMALS.map((amount) => ({
      name: `amount ${String(amount).slice(0, 20)}`,
      body: { transactionId: randomUUID(), invoiceId: 'INV-1', amount },
      // A 401-digit amount is a well-formed decimal: refused later, for the unknown transaction.
      ...(amount === HUGE ? {} : { names: 'amount' }),
    })),
    {
      name: 'an unknown field',
      body: { transactionId: randomUUID(), invoiceId: 'INV-1', note: 'x' },
      names: 'note',
    },
    {
      name: 'a 100k-char invoice id',
      body: { transactionId: randomUUID(), invoiceId: LONG },
      names: 'invoiceId',
    },
  ],
  'POST /api/transactions/:id/give-back': [
    ...ids('/api/transactions/:id/give-back'),
    { name: 'an unknown transaction', path: `/api/transactions/${randomUUID()}/give-back` },
  ],
  'POST /api/transactions/:id/remittance': [
    ...ids('/api/transactions/:id/remittance'),
    ...malformed({ path: `/api/transactions/${randomUUID()}/remittance` }),
    {
      name: 'no lines',
      path: `/api/transactions/${randomUUID()}/remittance`,
      body: { lines: [] },
      names: 'lines',
    },
    ...BAD_DECIMALS.filter((amount) => amount !== HUGE).map((amount) => ({
      name: `a line amount ${String(amount).slice(0, 20)}`,
      path: `/api/transactions/${randomUUID()}/remittance`,
      body: { lines: [{ invoiceNumber: 'INV-1', amount }] },
      names: 'amount',
    })),
    {
      name: 'an unknown fee reason',
      path: `/api/transactions/${randomUUID()}/remittance`,
      body: { lines: [{ invoiceNumber: 'INV-1', amount: '10.00' }], feeReason: 'tip' },
      names: 'feeReason',
    },
    {
      name: 'an unknown field',
      path: `/api/transactions/${randomUUID()}/remittance`,
      body: { lines: [{ invoiceNumber: 'INV-1', amount: '10.00' }], note: 'x' },
      names: 'note',
    },
    {
      name: 'a CSV row with a bad amount',
      path: `/api/transactions/${randomUUID()}/remittance`,
      raw: 'invoiceNumber,amount\nINV-1,ten',
      contentType: 'text/csv',
      names: 'amount',
    },
    {
      name: 'a CSV with U+0000',
      path: `/api/transactions/${randomUUID()}/remittance`,
      raw: 'invoiceNumber,amount\nINV-\u0000,10.00',
      contentType: 'text/csv',
    },
    {
      name: 'an unknown transaction',
      path: `/api/transactions/${randomUUID()}/remittance`,
      body: { lines: [{ invoiceNumber: 'INV-1', amount: '10.00' }] },
    },
  ],
  'POST /api/exceptions/:key/dispose': [
    ...malformed({ path: '/api/exceptions/k/dispose' }),
    {
      name: 'an unknown kind',
      path: '/api/exceptions/k/dispose',
      body: { kind: 'burn', reason: 'r' },
      names: 'kind',
    },
    { name: 'no reason', path: '/api/exceptions/k/dispose', body: { kind: 'refund' }, names: 'reason' },
    {
      name: 'a blank reason',
      path: '/api/exceptions/k/dispose',
      body: { kind: 'refund', reason: '   ' },
      names: 'reason',
    },
    {
      name: 'a 100k-char account',
      path: '/api/exceptions/k/dispose',
      body: { kind: 'write_off', reason: 'r', account: LONG },
      names: 'account',
    },
    {
      name: 'an unknown field',
      path: '/api/exceptions/k/dispose',
      body: { kind: 'ignore', reason: 'r', amount: '5' },
      names: 'amount',
    },
    {
      name: 'an unknown exception',
      path: '/api/exceptions/nope/dispose',
      body: { kind: 'ignore', reason: 'r' },
    },
  ],
  'POST /api/invoices/:id/write-off': [
    ...ids('/api/invoices/:id/write-off'),
    ...malformed({ path: '/api/invoices/inv-1/write-off' }),
    ...BAD_DECIMALS.map((amount) => ({
      name: `amount ${String(amount).slice(0, 20)}`,
      path: '/api/invoices/inv-1/write-off',
      body: { amount, reason: 'rounding' },
      names: 'amount',
    })),
    {
      name: 'a zero amount',
      path: '/api/invoices/inv-1/write-off',
      body: { amount: '0.00', reason: 'rounding' },
      names: 'amount',
    },
    {
      name: 'an unknown reason',
      path: '/api/invoices/inv-1/write-off',
      body: { reason: 'gift' },
      names: 'reason',
    },
    { name: 'no reason', path: '/api/invoices/inv-1/write-off', body: {}, names: 'reason' },
    {
      name: 'a 100k-char note',
      path: '/api/invoices/inv-1/write-off',
      body: { reason: 'other', note: LONG },
      names: 'note',
    },
    {
      name: 'an unknown field',
      path: '/api/invoices/inv-1/write-off',
      body: { reason: 'other', kind: 'refund' },
      names: 'kind',
    },
    { name: 'an unknown invoice', path: '/api/invoices/nope/write-off', body: { reason: 'other' } },
  ],
  'GET /api/dispositions': [
    ...queries('invoiceId', ['x'.repeat(300)]),
    ...queries('status', ['done', ...INJECTIONS]),
    ...queries('transactionId', INJECTIONS),
    ...queries('after', INJECTIONS),
    ...queries('limit', ['0', '1e400']),
  ],
  'POST /api/dispositions/:id/approve': [...ids('/api/dispositions/:id/approve')],
  'POST /api/dispositions/:id/decline': [
    ...ids('/api/dispositions/:id/decline'),
    {
      name: 'a 100k-char note',
      path: '/api/dispositions/1/decline',
      body: { note: LONG },
      names: 'note',
    },
    {
      name: 'an unknown field',
      path: '/api/dispositions/1/decline',
      body: { reason: 'r' },
      names: 'reason',
    },
  ],
  'POST /api/dispositions/:id/undo': [
    ...ids('/api/dispositions/:id/undo'),
    { name: 'an unknown disposition', path: '/api/dispositions/999999/undo' },
  ],
  'GET /api/journal': [
    ...queries('from', BAD_DATES),
    { name: 'no period', query: 'format=csv', names: 'from' },
    { name: 'from after to', query: 'from=2026-03-02&to=2026-03-01', names: 'to' },
    { name: 'an unknown format', query: 'from=2026-03-01&to=2026-03-02&format=xlsx', names: 'format' },
  ],
  'DELETE /api/allocations/:id': [
    ...ids('/api/allocations/:id'),
    { name: '19 digits', path: '/api/allocations/1234567890123456789' },
  ],
  'GET /api/report': [
    ...queries('from', BAD_DATES),
    { name: 'from after to', query: 'from=2026-03-02&to=2026-03-01', names: 'from' },
  ],
  'POST /api/invoices/import': [
    { name: 'JSON without csv', body: { rows: [] }, names: 'body' },
    { name: 'JSON csv of the wrong type', body: { csv: 5 }, names: 'body' },
    { name: 'XML', raw: '<invoices/>', contentType: 'application/xml', names: 'body' },
    ...malformed(),
    ...BAD_DECIMALS.filter((v) => typeof v === 'string').map((amount) => ({
      name: `CSV amount ${String(amount).slice(0, 20)}`,
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', `INV-bad,2,"${String(amount)}",EUR,2026-03-01`]),
      contentType: 'text/csv',
      names: 'amount',
    })),
    ...BAD_DATES.map((date) => ({
      name: `CSV dueDate ${date}`,
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', `INV-bad,2,10.00,EUR,${date}`]),
      contentType: 'text/csv',
      names: 'dueDate',
    })),
    ...INJECTIONS.map((s) => ({
      name: `CSV id ${s}`,
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', `"${s.replace(/"/g, '""')}",2,10.00,EUR,2026-03-01`]),
      contentType: 'text/csv',
    })),
    {
      name: 'CSV with an unknown column',
      raw: 'id,number,amount,currency,color\nINV-1,1,1.00,EUR,red',
      contentType: 'text/csv',
      names: 'color',
    },
    {
      name: 'CSV with a NUL in the customer',
      raw: 'id,number,amount,currency,customerName\nINV-1,1,1.00,EUR,a\u0000b',
      contentType: 'text/csv',
    },
    {
      name: 'CSV with a NUL byte',
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', 'INV-\u0000,2,10.00,EUR,2026-03-01']),
      contentType: 'text/csv',
    },
    {
      name: 'CSV with a 100k-char field',
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', `INV-2,${LONG},10.00,EUR,2026-03-01`]),
      contentType: 'text/csv',
    },
    {
      name: 'CSV with an unclosed quote',
      raw: csv(['INV-ok,1,10.00,EUR,2026-03-01', '"INV-2,2,10.00,EUR,2026-03-01']),
      contentType: 'text/csv',
    },
    { name: 'an empty CSV', raw: '', contentType: 'text/csv' },
  ],
  'PUT /api/invoices/:id': [
    ...malformed({ path: '/api/invoices/INV-1' }),
    {
      name: 'metadata nested 5,000 deep',
      path: '/api/invoices/INV-1',
      raw: JSON.stringify(invoice({})).replace(
        /}$/,
        `,"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      ),
      names: 'metadata',
    },
    {
      name: 'a garbage body under Content-Encoding: deflate',
      path: '/api/invoices/INV-1',
      raw: 'not deflated at all',
      headers: { 'content-encoding': 'deflate' },
      names: 'Content-Encoding',
    },
    {
      name: 'an unknown Content-Encoding',
      path: '/api/invoices/INV-1',
      raw: JSON.stringify(invoice({})),
      headers: { 'content-encoding': 'zstd-bogus' },
      names: 'encoding',
    },
    { name: 'an array body', path: '/api/invoices/INV-1', body: [invoice({})] },
    ...BAD_DECIMALS.map((amount) => ({
      name: `amount ${String(amount).slice(0, 20)}`,
      path: '/api/invoices/INV-1',
      body: invoice({ amount }),
      names: 'amount',
    })),
    ...BAD_DATES.map((dueDate) => ({
      name: `dueDate ${dueDate}`,
      path: '/api/invoices/INV-1',
      body: invoice({ dueDate }),
      names: 'dueDate',
    })),
    ...INJECTIONS.map((s) => ({
      name: `currency ${s}`,
      path: '/api/invoices/INV-1',
      body: invoice({ currency: s }),
      names: 'currency',
    })),
    {
      name: 'an unknown field',
      path: '/api/invoices/INV-1',
      body: invoice({ colour: 'red' }),
      names: 'colour',
    },
    {
      name: 'a derived field',
      path: '/api/invoices/INV-1',
      body: invoice({ status: 'paid' }),
      names: 'status',
    },
    {
      name: 'a NUL in the customer',
      path: '/api/invoices/INV-1',
      body: invoice({ customerName: 'a\u0000b' }),
      names: 'customerName',
    },
    {
      name: 'a lone surrogate in the number',
      path: '/api/invoices/INV-1',
      body: invoice({ number: 'x\ud800' }),
      names: 'number',
    },
    {
      name: 'a 100k-char number',
      path: '/api/invoices/INV-1',
      body: invoice({ number: LONG }),
      names: 'number',
    },
    ...ids('/api/invoices/:id').map((c) => ({ ...c, body: invoice({}) })),
    {
      name: 'body id differs from the path',
      path: '/api/invoices/INV-1',
      body: invoice({ id: 'INV-2' }),
      names: 'id',
    },
  ],
  'GET /api/invoices/:id': ids('/api/invoices/:id'),
  'GET /api/invoices': [
    ...queries('status', INJECTIONS),
    ...queries('limit', ['0', '1e400']),
    ...queries('cursor', INJECTIONS),
  ],
  'DELETE /api/invoices/:id': ids('/api/invoices/:id'),
  'PUT /api/credit-notes/:id': [
    ...malformed({ path: '/api/credit-notes/cn-1' }),
    ...BAD_DECIMALS.filter((v) => v !== null).map((value) => ({
      name: `amount ${String(value).slice(0, 20)}`,
      path: '/api/credit-notes/cn-1',
      body: { number: 'CN-1', amount: value, currency: 'EUR', invoiceId: 'INV-1' },
      names: 'amount',
    })),
    {
      name: 'an invoice that does not exist',
      path: '/api/credit-notes/cn-1',
      body: { number: 'CN-1', amount: '1.00', currency: 'EUR', invoiceId: 'nope' },
      names: 'invoiceId',
    },
    {
      name: 'an unknown field',
      path: '/api/credit-notes/cn-1',
      body: { number: 'CN-1', amount: '1.00', currency: 'EUR', invoiceId: 'INV-1', colour: 'red' },
      names: 'colour',
    },
  ],
  'GET /api/credit-notes/:id': ids('/api/credit-notes/:id'),
  'GET /api/credit-notes': queries('limit', ['0', '1e400', 'ten']),
  'DELETE /api/credit-notes/:id': ids('/api/credit-notes/:id'),
  'POST /api/credit-notes/:id/approve': ids('/api/credit-notes/:id/approve'),
  'POST /api/credit-notes/:id/decline': ids('/api/credit-notes/:id/decline'),
  'GET /api/approvals': queries('limit', ['0', '1e400', 'ten']),
  'POST /api/remittance-imports/:id/approve': [
    ...ids('/api/remittance-imports/:id/approve'),
    { name: 'an unknown import', path: '/api/remittance-imports/999999/approve' },
  ],
  'POST /api/remittance-imports/:id/decline': [
    ...ids('/api/remittance-imports/:id/decline'),
    {
      name: 'an unknown field',
      path: '/api/remittance-imports/1/decline',
      body: { reason: 'r' },
      names: 'reason',
    },
  ],
  'GET /api/matching/config': [],
  'GET /api/openapi.json': [],
  'GET /api/settings/matching': [],
  'PUT /api/settings/matching': [
    ...malformed(),
    { name: 'no mode', body: {}, names: 'autoApply' },
    { name: 'an unknown mode', body: { autoApply: 'sometimes' }, names: 'autoApply' },
    { name: 'a mode as a number', body: { autoApply: 1 }, names: 'autoApply' },
    { name: 'an unknown field', body: { autoApply: 'on', colour: 'red' }, names: 'colour' },
  ],
  'GET /api/matching/trust-report': [
    { name: 'no period', names: 'from' },
    ...BAD_DATES.map((day) => ({ name: `from=${day}`, query: `from=${day}&to=2026-03-01`, names: 'from' })),
    { name: 'from after to', query: 'from=2026-03-02&to=2026-03-01', names: 'from' },
  ],
  'GET /api/payments': [
    ...queries('amount', ['1e400', 'NaN', '1,000.00']),
    ...queries('from', BAD_DATES),
    ...queries('limit', ['0', '1e400', 'ten']),
    { name: 'to before from', query: 'from=2026-03-02&to=2026-03-01', names: 'to' },
  ],
  'GET /api/open-invoices': [
    { name: 'no search text', names: 'q' },
    { name: 'an odd currency', query: 'q=INV&currency=euro', names: 'currency' },
    { name: 'a limit above 50', query: 'q=INV&limit=51', names: 'limit' },
  ],
  'GET /api/alerts': [...queries('severity', INJECTIONS), ...queries('cursor', INJECTIONS)],
  'GET /api/me': [],
  'GET /api/audit': [
    ...queries('cursor', ['nope', 'kc_eyJrIjoia2V5IiwiYSI6IngiLCJxIjoiIn0', ...INJECTIONS]),
    ...queries('limit', ['0', '-1', '1001', 'ten']),
    ...queries('actor', ['x'.repeat(300)]),
  ],
  'GET /api/users': queries('includeRemoved', ['yes', ...INJECTIONS]),
  'POST /api/users': [
    ...malformed(),
    { name: 'no body', body: {}, names: 'name' },
    { name: 'no role', body: { name: 'dora' }, names: 'role' },
    { name: 'an unknown role', body: { name: 'dora', role: 'root' }, names: 'role' },
    { name: 'an unknown field', body: { name: 'dora', role: 'viewer', token: 'mine' }, names: 'token' },
    { name: 'a reserved name', body: { name: 'engine', role: 'viewer' }, names: 'name' },
    { name: 'the built-in admin’s name', body: { name: 'admin', role: 'admin' }, names: 'name' },
    { name: 'a 100k-char name', body: { name: LONG, role: 'viewer' }, names: 'name' },
    ...INJECTIONS.map((name) => ({
      name: `name ${name}`,
      body: { name, role: 'viewer' },
      names: 'name',
    })),
  ],
  'PATCH /api/users/:name': [
    ...malformed({ path: '/api/users/dora' }),
    { name: 'an unknown role', path: '/api/users/dora', body: { role: 'root' }, names: 'role' },
    { name: 'no such user', path: '/api/users/dora', body: { role: 'viewer' } },
    ...ids('/api/users/:name').map((c) => ({ ...c, body: { role: 'viewer' } })),
  ],
  'DELETE /api/users/:name': ids('/api/users/:name'),
  'PUT /api/customers/:id': [
    ...malformed({ path: '/api/customers/cus-1' }),
    { name: 'an array body', path: '/api/customers/cus-1', body: [{ name: 'Acme' }] },
    { name: 'no name', path: '/api/customers/cus-1', body: { bankAccounts: [] }, names: 'name' },
    {
      name: 'an IBAN with wrong check digits',
      path: '/api/customers/cus-1',
      body: { name: 'Acme', bankAccounts: ['DE89 3704 0044 0532 0130 01'] },
      names: 'bankAccounts.0',
    },
    ...INJECTIONS.map((s) => ({
      name: `bank account ${s}`,
      path: '/api/customers/cus-1',
      body: { name: 'Acme', bankAccounts: [s] },
      names: 'bankAccounts',
    })),
    { name: 'a 100k-char name', path: '/api/customers/cus-1', body: { name: LONG }, names: 'name' },
    {
      name: 'an unknown field',
      path: '/api/customers/cus-1',
      body: { name: 'A', colour: 'red' },
      names: 'colour',
    },
    {
      name: 'aliases not a list',
      path: '/api/customers/cus-1',
      body: { name: 'A', aliases: 'B' },
      names: 'aliases',
    },
    ...ids('/api/customers/:id').map((c) => ({ ...c, body: { name: 'Acme' } })),
    {
      name: 'body id differs from the path',
      path: '/api/customers/cus-1',
      body: { id: 'cus-2', name: 'A' },
      names: 'id',
    },
  ],
  'GET /api/customers/:id': ids('/api/customers/:id'),
  'GET /api/customers': [...queries('limit', ['0', '1e400']), ...queries('cursor', INJECTIONS)],
  'POST /api/customers/import': [
    { name: 'JSON without csv', body: { rows: [] }, names: 'body' },
    ...malformed(),
    {
      name: 'CSV with a bad IBAN',
      raw: 'id,name,bankAccounts\ncus-ok,Acme,\ncus-bad,Bad,DE00 1234',
      contentType: 'text/csv',
      names: 'bankAccounts',
    },
    {
      name: 'CSV with an unknown column',
      raw: 'id,name,color\nc,A,red',
      contentType: 'text/csv',
      names: 'color',
    },
    { name: 'an empty CSV', raw: '', contentType: 'text/csv' },
  ],
  'DELETE /api/customers/:id/learned/:linkId': [
    ...ids('/api/customers/:id/learned/1'),
    ...ODD_IDS.map((id) => ({
      name: `odd link id ${id.slice(0, 20)}`,
      path: `/api/customers/cus-1/learned/${id}`,
    })),
  ],
  'POST /api/matching/dry-run': [
    ...malformed(),
    { name: 'a threshold of 0', body: { config: { autoApplyThreshold: 0 } }, names: 'autoApplyThreshold' },
    {
      name: 'a threshold as text',
      body: { config: { autoApplyThreshold: 'high' } },
      names: 'autoApplyThreshold',
    },
    ...BAD_DECIMALS.filter((v) => v !== null).map((value) => ({
      name: `fee tolerance ${String(value).slice(0, 20)}`,
      body: { config: { feeToleranceAbsolute: value } },
      names: 'feeToleranceAbsolute',
    })),
    { name: 'an unknown option', body: { config: { colour: 'red' } }, names: 'colour' },
    { name: 'a limit of 0', body: { limit: 0 }, names: 'limit' },
  ],
}

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let routes: AppRoute[]

beforeAll(async () => {
  // The API role alone: no worker or receiver writes in the background, so any change is a request's doing.
  sidecar = await startTestSidecar('api_bad_input', ['api'])
  routes = listRoutes(createSidecarApp(sidecar.context, { roles: new Set(['api']) }) as never).filter((r) =>
    r.path.startsWith('/api/'),
  )
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

async function send(route: AppRoute, c: Case) {
  const path = (c.path ?? route.path.replace(/:\w+/g, 'no-such-id')) + (c.query ? `?${c.query}` : '')
  const body = c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body))
  const response = await fetch(`${sidecar.url}${path}`, {
    method: route.method,
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': c.contentType ?? 'application/json' }),
      ...c.headers,
    },
    body,
  })
  const text = await response.text()
  return { status: response.status, text, type: response.headers.get('content-type') ?? '' }
}

describe('bad input to the HTTP API', () => {
  it('has cases for every /api route the router serves', () => {
    expect(routes.length).toBeGreaterThanOrEqual(25)
    expect(routes.map((r) => `${r.method} ${r.path}`).filter((key) => !(key in CASES))).toEqual([])
  })

  it(
    'answers each with a clear 4xx that names what is wrong, and writes nothing',
    { timeout: 180_000 },
    async () => {
      const wrong: string[] = []
      for (const route of routes) {
        const cases = CASES[`${route.method} ${route.path}`] ?? []
        const before = await snapshotTables(sidecar.context.store.db, sidecar.schema)
        for (const c of cases) {
          const answer = await send(route, c)
          const where = `${route.method} ${route.path} ${c.name}`
          if (answer.status < 400 || answer.status >= 500) {
            wrong.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`)
            continue
          }
          if (!answer.type.startsWith('application/json')) {
            wrong.push(`${where}: ${answer.status} answered ${answer.type}`)
            continue
          }
          const error = (
            JSON.parse(answer.text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown } }
          ).error
          if (
            typeof error?.code !== 'string' ||
            typeof error.message !== 'string' ||
            !error.message ||
            !error.requestId
          ) {
            wrong.push(`${where}: no { error: { code, message, requestId } } in ${answer.text.slice(0, 200)}`)
          } else if (c.names && !answer.text.includes(c.names)) {
            wrong.push(`${where}: the error does not name ${c.names}: ${answer.text.slice(0, 200)}`)
          }
          if (answer.text.length > 20_000)
            wrong.push(`${where}: echoes the input (${answer.text.length} chars)`)
        }
        const after = await snapshotTables(sidecar.context.store.db, sidecar.schema)
        const changed = Object.keys(after).filter((table) => after[table] !== before[table])
        if (changed.length > 0) wrong.push(`${route.method} ${route.path}: wrote to ${changed.join(', ')}`)
      }
      expect(wrong).toEqual([])
    },
  )
})

/** Sends the headers and the first megabyte of a body declared 100 MB, and resolves with the answer's status. */
function hugeBody(path: string, contentType: string): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    const declared = 100 * 1024 * 1024
    let sent = 0
    const req = httpRequest(`${sidecar.url}${path}`, {
      method: path.includes('invoices/INV') ? 'PUT' : 'POST',
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        'content-type': contentType,
        'content-length': declared,
      },
    })
    req.on('response', (res) => {
      res.resume()
      resolve({ status: res.statusCode ?? 0, sent })
      req.destroy()
    })
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    )
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    // Never the whole body: an answer can only come from a server that refused it by its declared length.
    for (let i = 0; i < 16; i++) {
      req.write(chunk)
      sent += chunk.length
    }
  })
}

describe('a 100 MB body', () => {
  it.each([
    ['/api/transfers', 'application/json'],
    ['/api/invoices/import', 'text/csv'],
    ['/api/invoices/INV-1', 'application/json'],
    ['/api/connections', 'application/json'],
  ])('to %s (%s) is answered 413 without being read', async (path, type) => {
    const before = await snapshotTables(sidecar.context.store.db, sidecar.schema)
    const { status, sent } = await hugeBody(path, type)
    expect(status).toBe(413)
    expect(sent).toBeLessThan(2 * 1024 * 1024)
    expect(await snapshotTables(sidecar.context.store.db, sidecar.schema)).toEqual(before)
  })
})
