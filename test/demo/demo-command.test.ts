import { randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, type CommandIo } from '../../src/cli/index.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

const schemas: string[] = []

function captureIo(env: Record<string, string>): CommandIo & { out(): string; err(): string } {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (chunk) => (out += chunk))
  stderr.on('data', (chunk) => (err += chunk))
  return {
    stdout,
    stderr,
    env,
    untilStopped: () => new Promise(() => undefined),
    out: () => out,
    err: () => err,
  }
}

function demoEnv(label: string, extra: Record<string, string> = {}): Record<string, string> {
  const schema = `test_demo_${label}_${randomBytes(4).toString('hex')}`
  schemas.push(schema)
  return {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: schema,
    LOG_LEVEL: 'error',
    ...extra,
  }
}

afterAll(async () => {
  await dropSidecarSchemas(...schemas)
})

/** The fixture's story ends here, whatever the seed: its shape is fixed (docs/demo.md). */
function expectTheFixtureOutcome(out: string) {
  expect(out).toContain('invoices     60: open 7, overpaid 1, paid 51, partially_paid 1')
  expect(out).toMatch(/payments {5}56 \(/)
  expect(out).toContain('matched      52 in full, 1 in part, 3 not')
  expect(out).toContain('suggestions  1 waiting for a person')
  expect(out).toContain(
    'exceptions   4 open: currency_mismatch 1, overpayment 1, suggested_match 1, unmatched_payment 1',
  )
  expect(out).toMatch(/alerts {7}\d+/)
}

describe('bankrec demo', () => {
  it('runs the story to the end on the PostgreSQL queue and prints the summary the fixture leads to', async () => {
    const io = captureIo(demoEnv('pgq'))
    const code = await runCli(['demo'], io)
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' })
    expect(io.out()).toContain('sandbox mode')
    expect(io.out()).toContain('demo: 60 invoices loaded, 0 already there')
    expectTheFixtureOutcome(io.out())
  })

  it('ends the same on the Redis queue, with another seed', async () => {
    const io = captureIo(
      demoEnv('redis', {
        REDIS_URL: 'redis://127.0.0.1:6379',
        QUEUE_PREFIX: `test-demo-${randomBytes(4).toString('hex')}`,
      }),
    )
    const code = await runCli(['demo', '--seed', '7', '--quiet'], io)
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' })
    expect(io.out()).not.toContain('demo: P01')
    expectTheFixtureOutcome(io.out())
  })

  it('exits 1 and names the payments not reconciled when the deadline passes first', async () => {
    const io = captureIo(demoEnv('deadline'))
    const code = await runCli(['demo', '--timeout', '0', '--quiet'], io)
    expect(code).toBe(1)
    expect(io.err()).toMatch(/did not complete within 0 s; not reconciled:\n {2}P\d\d /)
  })
})
