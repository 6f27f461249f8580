import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

const PASSWORD = `Pw-${randomUUID()}`
let harness: SandboxHarness

beforeAll(async () => {
  harness = await startSandbox()
})

afterAll(async () => {
  await harness?.close()
})

describe('bankrec connect in a pseudo-terminal', () => {
  it('asks for the credentials with the password masked, then waits until active', async () => {
    const command = [
      'npx tsx src/cli/main.ts connect',
      `--entity ${randomUUID()} --institution ins_harbor_national --poll-interval 0.05 --timeout 60`,
    ].join(' ')
    // script(1) runs the command on a pseudo-terminal: stdin is a TTY there, so the wizard prompts.
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: process.cwd(),
      env: { ...process.env, BANK_API_URL: harness.url, BANK_API_KEY: harness.apiKey, LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    const answered = new Set<string>()
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      const answer = (prompt: string, text: string) => {
        if (out.includes(prompt) && !answered.has(prompt)) {
          answered.add(prompt)
          child.stdin.write(`${text}\r`)
        }
      }
      answer('Bank username [', 'delegate.ops')
      answer('Bank customer id (optional): ', '')
      answer('Password: ', PASSWORD)
      if (out.includes('Setup marked complete') && !answered.has('advance')) {
        answered.add('advance')
        void harness.sandbox.advance(15)
      }
    })
    expect(await exited).toBe(0)
    expect(out).toContain('Password: ')
    expect(out).toContain('Credentials sent to the bank')
    expect(out).toMatch(/is ready and active/)
    // The terminal echoes nothing of the password; script(1) records everything the terminal showed.
    expect(out).not.toContain(PASSWORD)
    expect(out).toContain('delegate.ops')
  }, 60_000)
})
