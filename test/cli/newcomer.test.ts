import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildProgram, runCli } from '../../src/cli/index.js'
import { SANDBOX_COMMAND_PORT } from '../../src/cli/sandbox.js'
import { BUILT_IN_BANK_PORT } from '../../src/sidecar/open-bank.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { testIo } from './test-io.js'

const root = path.resolve(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }
const cleanUp: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const step of cleanUp) await step()
})

/** A port something else listens on. */
async function takenPort(): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanUp.push(() => new Promise((resolve) => server.close(() => resolve())))
  return (server.address() as { port: number }).port
}

describe("a newcomer's first commands", () => {
  it('bankrec --version prints the version of package.json', async () => {
    for (const flag of ['--version', '-V']) {
      const t = testIo({})
      expect(await runCli([flag], t.io)).toBe(0)
      expect(t.out()).toBe(`${pkg.version}\n`)
    }
    // The installed command itself, as a person runs it.
    const printed = execFileSync(process.execPath, [path.join(root, 'bin/bankrec.js'), '--version'], {
      encoding: 'utf8',
    })
    expect(printed).toBe(`${pkg.version}\n`)
  })

  it('gives `npm start`’s built-in bank and `bankrec sandbox` different default ports', () => {
    expect(BUILT_IN_BANK_PORT).not.toBe(SANDBOX_COMMAND_PORT)
    const sandbox = buildProgram(testIo({}).io).commands.find((c) => c.name() === 'sandbox')!
    expect(sandbox.options.find((o) => o.long === '--port')!.defaultValue).toBe(SANDBOX_COMMAND_PORT)
  })

  it('names the taken port and --port when `bankrec sandbox` cannot listen', async () => {
    const port = await takenPort()
    const t = testIo({})
    expect(await runCli(['sandbox', '--port', String(port)], t.io)).toBe(1)
    expect(t.err()).toContain(`port ${port} is in use`)
    expect(t.err()).toContain('set --port to a free port')
    expect(t.err()).not.toMatch(/^Error: listen EADDRINUSE/m)
  })

  it('names the taken port and PORT when the sidecar cannot listen', async () => {
    const port = await takenPort()
    const schema = `test_newcomer_${process.pid}`
    cleanUp.push(() => dropSidecarSchemas(schema))
    const t = testIo({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      BANK_API_URL: 'http://127.0.0.1:9',
      BANK_API_KEY: 'sk_test_unused',
      PORT: String(port),
      LOG_LEVEL: 'silent',
    })
    expect(await runCli(['receiver'], t.io)).toBe(1)
    expect(t.err()).toContain(`port ${port} is in use`)
    expect(t.err()).toContain('set PORT to a free port')
  }, 60_000)

  it('exits 2 for BANK_API_URL without KIT_API_TOKEN, before any PostgreSQL starts', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'bankrec-newcomer-'))
    cleanUp.push(() => rm(directory, { recursive: true, force: true }))
    const dataDir = path.join(directory, 'data')
    const t = testIo({
      BANK_API_URL: 'https://bank.example',
      BANK_API_KEY: 'sk_live_x',
      BANKREC_DATA_DIR: dataDir,
    })
    expect(await runCli(['start'], t.io)).toBe(2)
    expect(t.err()).toMatch(/KIT_API_TOKEN is required to serve the HTTP API/)
    expect(existsSync(dataDir)).toBe(false)
  })

  it('exits 2 naming BANKREC_SECRET_KEY when DATABASE_URL is set without it (no key of its own per process)', async () => {
    const t = testIo({ DATABASE_URL: TEST_DATABASE_URL })
    expect(await runCli(['migrate'], t.io)).toBe(2)
    expect(t.err()).toMatch(/BANKREC_SECRET_KEY is required when DATABASE_URL is set/)
    expect(t.err()).toContain('openssl rand -base64 32')
  })

  it('answers the control address `bankrec sandbox` prints, listing the control calls of docs/sandbox.md', async () => {
    const t = testIo({})
    const running = runCli(['sandbox', '--port', '0'], t.io)
    const [, address] = (await t.waitForOutput(/control API: (\S+) /)) as unknown as [string, string]
    const response = await fetch(address)
    t.stop()
    expect(await running).toBe(0)
    expect(response.status).toBe(200)
    const index = (await response.json()) as { endpoints: string[] }
    const docs = readFileSync(path.join(root, 'docs/sandbox.md'), 'utf8')
    expect(index.endpoints.length).toBeGreaterThan(10)
    for (const endpoint of index.endpoints) expect(docs, endpoint).toContain(endpoint)
  })
})
