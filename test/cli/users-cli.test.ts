import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { verifyAuditChain } from '../../src/store/index.js'
import { userTokenHash } from '../../src/users/index.js'
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  TEST_SECRET_KEY,
} from '../support/test-database.js'
import { testIo } from './test-io.js'

let database: TestDatabase
let env: Record<string, string>

beforeAll(async () => {
  database = await createTestDatabase('users_cli')
  env = {
    DATABASE_URL: TEST_DATABASE_URL,
    BANKREC_SECRET_KEY: TEST_SECRET_KEY,
    BANKREC_SCHEMA: database.schema,
    LOG_LEVEL: 'silent',
    KIT_API_TOKEN_NAME: 'ops',
  }
})

afterAll(async () => {
  await database?.drop()
})

async function cli(args: string[], extra: Record<string, string> = {}) {
  const t = testIo({ ...env, ...extra })
  const code = await runCli(args, t.io)
  return { code, out: t.out(), err: t.err() }
}

const audit = () =>
  database.db
    .selectFrom('audit_log')
    .select(['actor', 'actor_role', 'action', 'entity_id', 'payload'])
    .where('entity', '=', 'user')
    .orderBy('seq')
    .execute()

describe('bankrec users', () => {
  it('adds a user and prints their token once on stdout, keeping only its SHA-256', async () => {
    const added = await cli(['users', 'add', 'Alice@Example.com', '--role', 'clerk'])
    expect(added.code).toBe(0)
    const token = added.out.trim()
    expect(token).toMatch(/^bku_[\w-]{43}$/)
    expect(added.err).toContain('added alice@example.com (clerk)')
    const [row] = await database.db.selectFrom('users').selectAll().execute()
    expect(row).toMatchObject({ name: 'alice@example.com', role: 'clerk', created_by: 'ops' })
    expect(row!.token_hash).toBe(userTokenHash(token))
    expect(JSON.stringify(row)).not.toContain(token)

    const listed = await cli(['users', 'list'])
    expect(listed.code).toBe(0)
    expect(listed.out).toMatch(/^alice@example\.com +clerk +added \S+ by ops\n$/)
    expect(listed.out).not.toContain('bku_')
  })

  it('refuses a taken name, a reserved one and an unknown role, without writing', async () => {
    expect((await cli(['users', 'add', 'alice@example.com', '--role', 'viewer'])).code).toBe(1)
    const reserved = await cli(['users', 'add', 'engine', '--role', 'viewer'])
    expect(reserved.code).toBe(2)
    expect(reserved.err).toContain('reserved')
    expect((await cli(['users', 'add', 'ops', '--role', 'viewer'])).err).toContain('built-in admin')
    expect((await cli(['users', 'add', 'bob', '--role', 'root'])).code).toBe(2)
    expect(await database.db.selectFrom('users').select('name').execute()).toEqual([
      { name: 'alice@example.com' },
    ])
  })

  it('changes a role and removes a user, each in the audit log under whoever ran it', async () => {
    const admin = (await cli(['users', 'add', 'root', '--role', 'admin'])).out.trim()
    const asRoot = { BANKREC_USER_TOKEN: admin }
    expect((await cli(['users', 'set-role', 'alice@example.com', 'approver'], asRoot)).out).toBe(
      'alice@example.com now has the approver role\n',
    )
    expect((await cli(['users', 'remove', 'alice@example.com'], asRoot)).code).toBe(0)
    expect((await cli(['users', 'list'])).out).not.toContain('alice')
    expect((await cli(['users', 'list', '--all'])).out).toMatch(
      /alice@example\.com +approver .* removed \S+ by root/,
    )
    expect(await audit()).toEqual([
      {
        actor: 'ops',
        actor_role: 'admin',
        action: 'user.added',
        entity_id: 'alice@example.com',
        payload: { role: 'clerk' },
      },
      {
        actor: 'ops',
        actor_role: 'admin',
        action: 'user.added',
        entity_id: 'root',
        payload: { role: 'admin' },
      },
      {
        actor: 'root',
        actor_role: 'admin',
        action: 'user.role_changed',
        entity_id: 'alice@example.com',
        payload: { from: 'clerk', to: 'approver' },
      },
      {
        actor: 'root',
        actor_role: 'admin',
        action: 'user.removed',
        entity_id: 'alice@example.com',
        payload: { role: 'approver' },
      },
    ])
    expect(await verifyAuditChain(database.db)).toMatchObject({ ok: true, entries: 4 })
  })

  it('lets only an admin manage users, and refuses a token that is nobody’s', async () => {
    const clerk = (await cli(['users', 'add', 'carl', '--role', 'clerk'])).out.trim()
    const refused = await cli(['users', 'add', 'mallory', '--role', 'admin'], { BANKREC_USER_TOKEN: clerk })
    expect(refused.code).toBe(1)
    expect(refused.err).toContain('managing users needs the admin role; carl is a clerk')
    const unknown = await cli(['users', 'list'], { BANKREC_USER_TOKEN: 'bku_not-a-token' })
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('BANKREC_USER_TOKEN is no active user’s token')
    expect((await cli(['users', 'remove', 'nobody'])).code).toBe(1)
  })
})
