import { randomUUID } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, type CommandIo } from '../../src/cli/index.js'
import { startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

const PASSWORD = `Pw-${randomUUID()}`
let harness: SandboxHarness

beforeAll(async () => {
  harness = await startSandbox()
})

afterAll(async () => {
  await harness?.close()
})

function testIo(stdin: string) {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  const waiters: Array<{ text: string; resolve: () => void }> = []
  stdout.on('data', (chunk) => {
    out += chunk
    for (const w of waiters.filter((w) => out.includes(w.text))) w.resolve()
  })
  stderr.on('data', (chunk) => (err += chunk))
  const io: CommandIo = {
    stdout,
    stderr,
    stdin: Readable.from([stdin]),
    env: { BANK_API_URL: harness.url, BANK_API_KEY: harness.apiKey, LOG_LEVEL: 'silent' },
    untilStopped: () => new Promise(() => undefined),
  }
  const printed = (text: string) =>
    new Promise<void>((resolve) => (out.includes(text) ? resolve() : waiters.push({ text, resolve })))
  return { io, out: () => out, err: () => err, printed }
}

/** Runs `bankrec connect` and lets the bank's activation happen once setup is marked complete. */
async function connect(args: string[], stdin: string) {
  const t = testIo(stdin)
  const exit = runCli(['connect', '--entity', randomUUID(), ...args, '--poll-interval', '0.02'], t.io)
  void t.printed('Setup marked complete').then(() => harness.sandbox.advance(15))
  const code = await exit
  return { code, out: t.out(), err: t.err() }
}

describe('bankrec connect, non-interactive', () => {
  it('onboards a catalog bank: instructions, credentials from stdin, setup completion, active', async () => {
    const result = await connect(
      ['--institution', 'ins_harbor_national', '--username', 'delegate.ops', '--password-stdin'],
      `${PASSWORD}\n`,
    )
    expect(result.err).toBe('')
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/Connection \S+ at .+: draft \(setup: next createDelegatedUser by service\)/)
    expect(result.out).toContain('Delegated user to create at the bank')
    expect(result.out).toMatch(/email: .+ \(provisioning: pending\)/)
    expect(result.out).toMatch(/Who acts: +the service/)
    expect(result.out).toContain(
      'Credentials sent to the bank: draft (setup: next activateConnection by integrator)',
    )
    expect(result.out).toContain(
      'Setup marked complete; the service activates the connection: pendingActivation',
    )
    expect(result.out).toContain('→ active (ready)')
    expect(result.out).toMatch(/is ready and active/)
    expect(result.out).not.toContain(PASSWORD)
  })

  it('onboards a bank outside the catalog by its portal URL', async () => {
    const result = await connect(
      [
        '--portal-url',
        'https://online.unlisted-bank.example/business',
        '--username',
        'ops',
        '--password-stdin',
      ],
      PASSWORD,
    )
    expect(result.err).toBe('')
    expect(result.code).toBe(0)
    expect(result.out).toContain('at https://online.unlisted-bank.example/business')
    expect(result.out).toMatch(/Portal: +https:\/\/online\.unlisted-bank\.example\/business/)
    expect(result.out).toMatch(/ready and active \(institution ins_unlisted_[0-9a-f]{12}\)/)
    expect(result.out).not.toContain(PASSWORD)
  })

  it('stops with the reason when the bank rejects the password', async () => {
    const result = await connect(
      ['--institution', 'ins_harbor_national', '--username', 'ops', '--password-stdin'],
      'wrong-password',
    )
    expect(result.code).toBe(1)
    expect(result.err).toMatch(/is reauthRequired/)
    expect(result.out + result.err).not.toContain('wrong-password')
  })

  it('refuses an entity that is not a UUID before calling the bank', async () => {
    const t = testIo('')
    const code = await runCli(['connect', '--entity', 'acme', '--institution', 'ins_harbor_national'], t.io)
    expect(code).toBe(2)
    expect(t.err()).toMatch(/entityId/)
  })

  it('refuses to ask for a password without a terminal or --password-stdin', async () => {
    const t = testIo('')
    const code = await runCli(
      ['connect', '--entity', randomUUID(), '--institution', 'ins_harbor_national'],
      t.io,
    )
    expect(code).toBe(2)
    expect(t.err()).toMatch(/--password-stdin/)
  })
})
