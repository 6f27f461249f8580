import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../../src/cli/index.js'
import { BankrecEnv, loadConfig } from '../../src/config/index.js'
import { testIo } from '../cli/test-io.js'

/**
 * No Docker engine runs here, so the Dockerfile and the compose example are checked statically against the CLI
 * and the environment schema they drive: a renamed command, option or variable breaks this test.
 */
const ROOT = resolve(import.meta.dirname, '../..')
// js-yaml ships with the lint toolchain (eslint); it has no type definitions.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown }

type Service = {
  image?: string
  build?: unknown
  command?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  deploy?: { replicas?: number }
  ports?: string[]
}
const compose = yaml.load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>
}
const bankrecServices = Object.entries(compose.services).filter(([, s]) => s.image === 'bankrec:local')
const program = buildProgram(testIo({}).io)

/** The command an argv names (`webhooks register` → the nested one), or undefined. */
function commandOf(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  let command: Command = program
  let i = 0
  for (; i < argv.length && !argv[i]!.startsWith('-'); i++) {
    const sub = command.commands.find((c) => c.name() === argv[i])
    if (!sub) return i === 0 ? undefined : { command, rest: argv.slice(i) }
    command = sub
  }
  return { command, rest: argv.slice(i) }
}

/** Compose interpolation: `${X:-default}` takes the default, `${X:?message}` a sample of what the operator sets. */
const SAMPLES: Record<string, string> = {
  BANK_API_URL: 'https://bank.example',
  BANK_API_KEY: 'sk_test_sample',
  PUBLIC_URL: 'https://bankrec.example.com',
  KIT_API_TOKEN: 'a-token-of-sixteen-chars',
  BANKREC_SECRET_KEY: 'a'.repeat(64),
}
function interpolate(value: string): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) =>
    kind === '-' ? (rest ?? '') : (SAMPLES[name] ?? `missing-sample-${name}`),
  )
}

describe('docker-compose.yml', () => {
  it('runs bankrec processes, PostgreSQL and Redis, with several worker replicas', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'bankrec', 'worker']),
    )
    expect(compose.services.worker!.command).toEqual(['worker'])
    expect(compose.services.worker!.deploy?.replicas).toBeGreaterThanOrEqual(2)
    expect(compose.services.bankrec!.command![0]).toBe('start')
    expect(compose.services.bankrec!.ports).toEqual(['${BANKREC_PORT:-8080}:8080'])
  })

  it('gives every bankrec service a command and options the CLI has', () => {
    expect(bankrecServices.length).toBeGreaterThanOrEqual(4)
    for (const [name, service] of bankrecServices) {
      const found = commandOf(service.command ?? [])
      expect(found, `${name}: ${service.command?.join(' ')}`).toBeDefined()
      const { command, rest } = found!
      expect(command, name).not.toBe(program)
      const longs = command.options.map((option) => option.long)
      for (const arg of rest.filter((a) => a.startsWith('--'))) expect(longs, `${name} ${arg}`).toContain(arg)
    }
    expect(compose.services.bankrec!.command).toEqual(['start', '--roles', 'receiver,api'])
  })

  it('sets only variables the environment schema knows, and they load as a valid configuration', () => {
    for (const [name, service] of bankrecServices) {
      const env = service.environment ?? {}
      for (const key of Object.keys(env))
        expect(Object.keys(BankrecEnv.shape), `${name}: ${key}`).toContain(key)
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v))]))
      const config = loadConfig(resolved)
      expect(config.DATABASE_URL).toBe('postgres://bankrec:bankrec@postgres:5432/bankrec')
      expect(config.REDIS_URL).toBe('redis://redis:6379')
    }
  })

  it('points DATABASE_URL and REDIS_URL at the compose services and starts bankrec after the migration', () => {
    const env = compose.services.bankrec!.environment!
    expect(new URL(interpolate(env.DATABASE_URL!)).hostname).toBe('postgres')
    expect(new URL(env.REDIS_URL!).hostname).toBe('redis')
    for (const name of ['bankrec', 'worker']) {
      expect(compose.services[name]!.depends_on?.migrate).toEqual({
        condition: 'service_completed_successfully',
      })
    }
  })
})

describe('.env.example', () => {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8')
  /** Every `NAME=value` line, set or commented out (`# NAME=value`): what a deployment may set. */
  const entries = [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({
    name: m[1]!,
    value: m[2]!,
  }))
  /** Read by docker-compose.yml itself, not by bankrec. */
  const COMPOSE_ONLY = ['POSTGRES_PASSWORD', 'BANKREC_PORT']

  it('names only variables the environment schema knows (or compose reads itself)', () => {
    expect(entries.length).toBeGreaterThan(10)
    for (const { name } of entries)
      expect([...Object.keys(BankrecEnv.shape), ...COMPOSE_ONLY], name).toContain(name)
  })

  it('has every variable docker-compose.yml reads, and a comment above each group', () => {
    const composeText = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')
    const read = new Set([...composeText.matchAll(/\$\{(\w+)/g)].map((m) => m[1]!))
    expect(read).toContain('BANKREC_SECRET_KEY')
    for (const name of read)
      expect(
        entries.map((e) => e.name),
        name,
      ).toContain(name)
    expect(text).toMatch(/# .*openssl rand -base64 32/)
  })

  it('holds no secret: every secret is left for the operator to fill in', () => {
    for (const { name, value } of entries.filter((e) => /KEY|TOKEN|SECRET|PASSWORD/.test(e.name)))
      expect(value, name).toBe('')
  })

  it('makes compose refuse to start without BANKREC_SECRET_KEY, the one key every container shares', () => {
    for (const [name, service] of bankrecServices)
      expect(service.environment?.BANKREC_SECRET_KEY, name).toMatch(/^\$\{BANKREC_SECRET_KEY:\?/)
  })
})

describe('Dockerfile', () => {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
  const instructions = (keyword: string) =>
    lines
      .filter((line) => line.startsWith(`${keyword} `))
      .map((line) => line.slice(keyword.length + 1).trim())

  it('builds on node:20-slim with npm run build and runs the compiled CLI', () => {
    expect(instructions('FROM').every((from) => from.startsWith('node:20-slim'))).toBe(true)
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(instructions('RUN')).toContain('npm run build')
    expect(pkg.scripts.build).toBeDefined()
    expect(JSON.parse(instructions('ENTRYPOINT')[0]!)).toEqual(['node', 'bin/bankrec.js'])
    const cmd = JSON.parse(instructions('CMD').at(-1)!) as string[]
    expect(commandOf(cmd)?.command.name()).toBe('start')
  })

  it('copies only files that exist, and sets only known variables', () => {
    for (const copy of instructions('COPY').filter((c) => !c.startsWith('--from'))) {
      const sources = copy.split(/\s+/).slice(0, -1)
      for (const source of sources) expect(existsSync(join(ROOT, source)), source).toBe(true)
    }
    const env = instructions('ENV')
      .join(' ')
      .split(/\s+/)
      .map((pair) => pair.split('=')[0]!)
    for (const key of env.filter((k) => k !== 'NODE_ENV'))
      expect(Object.keys(BankrecEnv.shape)).toContain(key)
    expect(env).toEqual(expect.arrayContaining(['HOST', 'PORT']))
  })
})
