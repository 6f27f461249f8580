import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = resolve(import.meta.dirname, '../..')
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')

/**
 * The package as an app installs it: `npm run build`'s output (built here into a temporary
 * node_modules/bankrec with package.json beside it), imported by package name through the `exports` map from a
 * throwaway app, in a separate Node process so resolution is Node's own.
 */
let app: string

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'bankrec-package-'))
  const installed = join(app, 'node_modules', 'bankrec')
  mkdirSync(installed, { recursive: true })
  copyFileSync(join(ROOT, 'package.json'), join(installed, 'package.json'))
  // bankrec's dependencies and the app's own (express, type definitions) come from this checkout.
  symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', 'express'), join(app, 'node_modules', 'express'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', '@types'), join(app, 'node_modules', '@types'), 'dir')
  await run(
    process.execPath,
    [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')],
    {
      cwd: ROOT,
    },
  )
}, 120_000)

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true })
})

const APP = `
import express from 'express'
import * as bankrec from 'bankrec'
import { createBankClient } from 'bankrec/api-client'
import { createWebhookMiddleware, signPayload } from 'bankrec/receiver'
import { createSandbox } from 'bankrec/sandbox'

const secret = 'whsec_throwaway_app_0001'
const jobs = []
const app = express()
app.post('/webhooks', createWebhookMiddleware({
  secrets: [secret],
  enqueue: async (job) => { jobs.push(job); return 'queued' },
}))
const server = await new Promise((ok) => { const s = app.listen(0, '127.0.0.1', () => ok(s)) })
const body = JSON.stringify({
  id: 'evt_throwaway_1', type: 'transactions.sync_available', apiVersion: 'v1', createdAt: new Date().toISOString(),
  data: { connectionId: 'conn_1', entityId: 'ent_1' },
})
const delivery = await fetch('http://127.0.0.1:' + server.address().port + '/webhooks', {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'service-signature': signPayload({ payload: body, secret, timestamp: Math.floor(Date.now() / 1000) }),
  },
  body,
})

const sandbox = createSandbox()
const baseUrl = await sandbox.listen({ port: 0, host: '127.0.0.1' })
const client = createBankClient({ baseUrl, apiKey: sandbox.apiKey })
const institutions = await client.institutions.list()

let deepImport
try { await import('bankrec/dist/sidecar/runtime.js'); deepImport = 'allowed' } catch (error) { deepImport = error.code }

await sandbox.close()
server.close()
console.log(JSON.stringify({
  delivery: delivery.status,
  jobs: jobs.map((job) => job.eventId),
  institutions: institutions.data.length,
  root: ['startSidecar', 'createBankClient', 'createWebhookMiddleware', 'createSandbox', 'loadConfig']
    .filter((name) => typeof bankrec[name] === 'function'),
  deepImport,
}))
`

const CONSUMER = `
import express from 'express'
import { startSidecar, type SidecarOptions } from 'bankrec'
import { createBankClient, BankApiError, type BankClient, type Transaction } from 'bankrec/api-client'
import { createWebhookMiddleware, type WebhookMiddlewareOptions } from 'bankrec/receiver'
import { createSandbox, type Sandbox } from 'bankrec/sandbox'

const options: WebhookMiddlewareOptions = { secrets: ['whsec_x'], enqueue: async () => 'queued' }
express().post('/webhooks', createWebhookMiddleware(options))
const client: BankClient = createBankClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' })
const sandbox: Sandbox = createSandbox()
const amount: Transaction['amount'] = '1.00'
// @ts-expect-error a money amount is a decimal string, never a number
const wrong: Transaction['amount'] = 1
export { client, sandbox, amount, wrong, startSidecar, BankApiError }
export type { SidecarOptions }
`

describe('the package exports', () => {
  it('lets an express app mount the receiver and use the client and the sandbox by subpath, nothing deeper', async () => {
    writeFileSync(join(app, 'app.mjs'), APP)
    const { stdout } = await run(process.execPath, ['app.mjs'], { cwd: app, timeout: 30_000 })
    expect(JSON.parse(stdout)).toEqual({
      delivery: 202,
      jobs: ['evt_throwaway_1'],
      institutions: expect.any(Number),
      root: ['startSidecar', 'createBankClient', 'createWebhookMiddleware', 'createSandbox', 'loadConfig'],
      deepImport: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    })
    expect(JSON.parse(stdout).institutions).toBeGreaterThan(0)
  })

  it('gives TypeScript the types of every subpath', async () => {
    writeFileSync(join(app, 'consumer.ts'), CONSUMER)
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    )
    const checked = await run(process.execPath, [TSC, '-p', app], { cwd: app }).then(
      () => 'ok',
      (error: { stdout: string }) => error.stdout,
    )
    expect(checked).toBe('ok')
  })
})
