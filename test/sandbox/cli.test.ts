import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runCli, type CommandIo } from '../../src/cli/index.js'

/** A process stand-in: collects output, and stops when the test says so. */
function fakeIo() {
  let output = ''
  let errors = ''
  let stop!: () => void
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  let onOutput: () => void = () => undefined
  const io: CommandIo = {
    stdout: new Writable({
      write(chunk, _encoding, done) {
        output += String(chunk)
        onOutput()
        done()
      },
    }),
    stderr: new Writable({
      write(chunk, _encoding, done) {
        errors += String(chunk)
        done()
      },
    }),
    env: {},
    untilStopped: () => stopped,
  }
  return {
    io,
    stop,
    output: () => output,
    errors: () => errors,
    /** Resolves with the first match of the pattern in stdout, once it has been written. */
    waitFor: (pattern: RegExp) =>
      new Promise<RegExpMatchArray>((resolve) => {
        const check = () => {
          const match = pattern.exec(output)
          if (match) resolve(match)
        }
        onOutput = check
        check()
      }),
  }
}

describe('bankrec sandbox', () => {
  it('listens, prints its URL and keys, accepts the --api-key key, and exits 0 when stopped', async () => {
    const fake = fakeIo()
    const exit = runCli(['sandbox', '--port', '0', '--seed', '7', '--api-key', 'sk_test_cli_key'], fake.io)
    const [, url] = await fake.waitFor(/sandbox listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*control API/)
    expect(fake.output()).toContain('sk_test_cli_key  full access')
    expect(fake.output()).toMatch(/sk_test_[0-9a-f]{32} {2}read only/)

    const authorized = await fetch(`${url}/v1/webhooks`, {
      headers: { authorization: 'Bearer sk_test_cli_key' },
    })
    expect(authorized.status).toBe(200)
    const unknown = await fetch(`${url}/v1/webhooks`, { headers: { authorization: 'Bearer sk_test_other' } })
    expect(unknown.status).toBe(401)

    fake.stop()
    expect(await exit).toBe(0)
    await expect(fetch(`${url}/_sandbox/clock`)).rejects.toThrow()
  })

  it('refuses http:// webhook URLs unless started with --allow-http-webhooks', async () => {
    for (const [flags, status] of [
      [[], 400],
      [['--allow-http-webhooks'], 201],
    ] as const) {
      const fake = fakeIo()
      const exit = runCli(['sandbox', '--port', '0', '--api-key', 'sk_test_cli_key', ...flags], fake.io)
      const [, url] = await fake.waitFor(/sandbox listening on (\S+)\n[\s\S]*control API/)
      const response = await fetch(`${url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_cli_key', 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['test'] }),
      })
      expect(response.status, flags.join(' ')).toBe(status)
      fake.stop()
      expect(await exit).toBe(0)
    }
  })

  it('speaks the dialect given by --dialect, and refuses an unknown one naming the dialects', async () => {
    const fake = fakeIo()
    const exit = runCli(['sandbox', '--port', '0', '--dialect', 'shouting'], fake.io)
    const [, url] = await fake.waitFor(/sandbox listening on (\S+)\n[\s\S]*control API/)
    expect(fake.output()).toContain('dialect: shouting')
    expect(await (await fetch(`${url}/_sandbox/dialect`)).json()).toMatchObject({ name: 'shouting' })
    fake.stop()
    expect(await exit).toBe(0)

    const refused = fakeIo()
    expect(await runCli(['sandbox', '--port', '0', '--dialect', 'klingon'], refused.io)).toBe(2)
    expect(refused.errors()).toMatch(/--dialect.*must be one of seed, kind-synonyms/)
    expect(refused.output()).not.toContain('listening')
  })

  it('prints the same generated keys for the same seed', async () => {
    const keysFor = async (seed: string) => {
      const fake = fakeIo()
      const exit = runCli(['sandbox', '--port', '0', '--seed', seed], fake.io)
      await fake.waitFor(/control API/)
      fake.stop()
      await exit
      return fake.output().match(/sk_test_[0-9a-f]{32}/g)
    }
    const first = await keysFor('11')
    expect(first).toHaveLength(4)
    expect(await keysFor('11')).toEqual(first)
    expect(await keysFor('12')).not.toEqual(first)
  })

  it('rejects a bad --port with a clear message and a non-zero exit code', async () => {
    for (const port of ['abc', '70000', '-1']) {
      const fake = fakeIo()
      const code = await runCli(['sandbox', '--port', port], fake.io)
      expect(code, port).not.toBe(0)
      expect(fake.errors()).toMatch(/--port/)
      expect(fake.output()).not.toContain('listening')
    }
  })

  it('exits non-zero with the reason when the port is taken', async () => {
    const first = fakeIo()
    const running = runCli(['sandbox', '--port', '0'], first.io)
    const [, port] = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/)
    const second = fakeIo()
    const code = await runCli(['sandbox', '--port', port!], second.io)
    expect(code).not.toBe(0)
    expect(second.errors()).toContain('EADDRINUSE')
    first.stop()
    expect(await running).toBe(0)
  })
})
