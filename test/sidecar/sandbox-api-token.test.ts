import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/observability/index.js'
import { startSidecar } from '../../src/sidecar/index.js'
import { SANDBOX_API_TOKEN_FILE, sandboxApiToken } from '../../src/sidecar/sandbox-api-token.js'
import { dropSidecarSchemas, TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'

let directory: string

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'bankrec-token-'))
})
afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

describe('sandboxApiToken', () => {
  it('keeps the token beside the state file, readable by its owner only, and gives it back', async () => {
    const stateFile = path.join(directory, 'kept', 'sandbox-state.json')
    const first = await sandboxApiToken(stateFile)
    expect(first.token).toMatch(/^kit_[A-Za-z0-9_-]{32}$/)
    expect(first.file).toBe(path.join(directory, 'kept', SANDBOX_API_TOKEN_FILE))
    expect((await readFile(first.file!, 'utf8')).trim()).toBe(first.token)
    expect((await stat(first.file!)).mode & 0o777).toBe(0o600)
    expect(await sandboxApiToken(stateFile)).toEqual(first)
  })

  it('makes a new token each time without a state file, and replaces a file that holds no token', async () => {
    const a = await sandboxApiToken(undefined)
    const b = await sandboxApiToken(undefined)
    expect(a.token).not.toBe(b.token)
    expect(a.file).toBeUndefined()
    const stateFile = path.join(directory, 'damaged', 'sandbox-state.json')
    const first = await sandboxApiToken(stateFile)
    await writeFile(first.file!, 'not a token\n')
    const replaced = await sandboxApiToken(stateFile)
    expect(replaced.token).toMatch(/^kit_[A-Za-z0-9_-]{32}$/)
    expect((await readFile(replaced.file!, 'utf8')).trim()).toBe(replaced.token)
  })
})

describe('sandbox mode without KIT_API_TOKEN', () => {
  it('serves the API with the same token after a restart', async () => {
    const schema = `test_sandbox_token_${randomBytes(4).toString('hex')}`
    const config = loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      BANKREC_SCHEMA: schema,
      BANKREC_DATA_DIR: path.join(directory, 'sidecar'),
      PORT: '0',
    })
    const start = () =>
      startSidecar({
        config,
        roles: new Set(['api']),
        logger: createLogger({ level: 'silent', destination: process.stderr }),
        sandboxPort: 0,
      })
    try {
      const first = await start()
      const token = first.context.apiToken!
      await first.close()
      const second = await start()
      try {
        expect(second.context.apiToken).toBe(token)
        const answer = await fetch(`${second.url}/api/overview`, {
          headers: { authorization: `Bearer ${token}` },
        })
        expect(answer.status).toBe(200)
      } finally {
        await second.close()
      }
    } finally {
      await dropSidecarSchemas(schema)
    }
  })
})
