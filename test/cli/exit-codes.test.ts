import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { buildProgram, runCli } from '../../src/cli/index.js'
import { TEST_DATABASE_URL, TEST_SECRET_KEY } from '../support/test-database.js'
import { testIo } from './test-io.js'

function commandPaths(command: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return command.commands.flatMap((sub) => [
    { path: [...path, sub.name()], command: sub },
    ...commandPaths(sub, [...path, sub.name()]),
  ])
}

describe('bankrec exit codes', () => {
  const commands = commandPaths(buildProgram(testIo({}).io))

  it('has a description on every command', () => {
    expect(commands.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining([
        'start',
        'receiver',
        'worker',
        'sandbox',
        'migrate',
        'sync',
        'webhooks register',
      ]),
    )
    for (const { path, command } of commands) expect(command.description(), path.join(' ')).not.toBe('')
  })

  it.each(commands.map((c) => [c.path.join(' '), c] as const))(
    'answers %s --help with exit 0',
    async (_, c) => {
      const t = testIo({})
      expect(await runCli([...c.path, '--help'], t.io)).toBe(0)
      expect(t.out()).toContain(`Usage: bankrec ${c.path.join(' ')}`)
      expect(t.out()).toContain(c.command.description().slice(0, 40))
    },
  )

  it('exits 2 on usage mistakes', async () => {
    for (const argv of [
      ['no-such-command'],
      ['start', '--no-such-option'],
      ['sync'],
      ['sandbox', '--port', 'x'],
    ]) {
      const t = testIo({})
      expect(await runCli(argv, t.io), argv.join(' ')).toBe(2)
      expect(t.err(), argv.join(' ')).toMatch(/error/)
    }
  })

  it('exits 2 on a bad configuration, listing every problem', async () => {
    const t = testIo({ PORT: 'eighty', DATABASE_URL: 'mysql://x' })
    expect(await runCli(['migrate'], t.io)).toBe(2)
    expect(t.err()).toMatch(/PORT must be a whole number/)
    expect(t.err()).toMatch(/DATABASE_URL must be a postgres/)
  })

  it('exits 1 when the work itself fails', async () => {
    const unreachable = new URL(TEST_DATABASE_URL)
    unreachable.port = '1'
    const t = testIo({
      DATABASE_URL: unreachable.toString(),
      BANKREC_SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'silent',
    })
    expect(await runCli(['migrate'], t.io)).toBe(1)
    expect(t.err()).toMatch(/^bankrec: /m)
  })
})
