import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSidecarApp } from '../../src/sidecar/http-app.js'
import { upsertTransactions, verifyAuditChain } from '../../src/store/index.js'
import { ROLES, type Role } from '../../src/users/index.js'
import { listRoutes, samplePath } from '../support/express-routes.js'
import { mirrorRow, txId } from '../support/mirror-fixture.js'
import { API_TOKEN, startTestSidecar } from './sidecar-fixture.js'

let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
const tokens = {} as Record<Role, string>
const NAMES: Record<Role, string> = { viewer: 'vera', clerk: 'carl', approver: 'april', admin: 'adam' }

async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined }
}

beforeAll(async () => {
  sidecar = await startTestSidecar('users_roles', ['api'])
  for (const role of ROLES) {
    const created = await call(API_TOKEN, 'POST', '/api/users', { name: NAMES[role], role })
    expect(created.status).toBe(201)
    tokens[role] = created.body.token
  }
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

describe('users over the API', () => {
  it('answers a new user’s token once and keeps only its SHA-256', async () => {
    const rows = await sidecar.context.store.db.selectFrom('users').selectAll().orderBy('id').execute()
    expect(rows.map((row) => [row.name, row.role, row.created_by])).toEqual(
      ROLES.map((role) => [NAMES[role], role, 'admin']),
    )
    for (const row of rows) {
      const token = tokens[row.role]
      expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'))
      expect(JSON.stringify(row)).not.toContain(token)
    }
    const listed = await call(API_TOKEN, 'GET', '/api/users')
    expect(listed.body.data.map((user: any) => user.name)).toEqual(['adam', 'april', 'carl', 'vera'])
    expect(JSON.stringify(listed.body)).not.toMatch(/bku_|token/)
  })

  it('names the caller and their role at /api/me, the built-in admin included', async () => {
    expect((await call(API_TOKEN, 'GET', '/api/me')).body).toEqual({
      name: 'admin',
      role: 'admin',
      kind: 'token',
      via: 'bearer',
    })
    for (const role of ROLES) {
      expect((await call(tokens[role], 'GET', '/api/me')).body).toEqual({
        name: NAMES[role],
        role,
        kind: 'user',
        via: 'bearer',
      })
    }
  })

  it('refuses a taken name (409) and a bad role or name (400, naming it)', async () => {
    expect((await call(API_TOKEN, 'POST', '/api/users', { name: 'carl', role: 'viewer' })).status).toBe(409)
    const role = await call(API_TOKEN, 'POST', '/api/users', { name: 'dora', role: 'root' })
    expect(role.status).toBe(400)
    expect(role.body.error.message).toContain('role must be one of viewer, clerk, approver, admin')
    const name = await call(API_TOKEN, 'POST', '/api/users', { name: 'admin', role: 'viewer' })
    expect(name.status).toBe(400)
    expect(name.body.error.message).toContain('name must not be one of')
  })
})

/** Mutating routes and the role each needs; any id is fine: the guard answers before the route looks. */
const BOUNDARIES: Array<[string, string, Role, unknown?]> = [
  ['POST', '/api/allocations', 'clerk', {}],
  ['DELETE', '/api/allocations/1', 'clerk'],
  ['POST', '/api/exceptions/k/accept', 'clerk'],
  ['POST', '/api/exceptions/k/reject', 'clerk'],
  ['POST', '/api/exceptions/k/dispose', 'clerk', {}],
  ['POST', '/api/dispositions/1/approve', 'clerk'],
  ['POST', '/api/dispositions/1/decline', 'clerk'],
  ['POST', '/api/dispositions/1/undo', 'clerk'],
  ['POST', '/api/transactions/00000000-0000-4000-8000-000000000000/give-back', 'clerk'],
  ['POST', '/api/connections/c/sync', 'clerk'],
  ['PUT', '/api/invoices/inv-x', 'admin', {}],
  ['DELETE', '/api/invoices/inv-x', 'admin'],
  ['POST', '/api/invoices/import', 'admin', {}],
  ['POST', '/api/transfers', 'admin', {}],
  ['POST', '/api/transfers/t/retry', 'admin'],
  ['POST', '/api/connections', 'admin', {}],
  ['PUT', '/api/connections/c/credentials', 'admin', {}],
  ['PUT', '/api/connections/c/setupCompletion', 'admin'],
  ['GET', '/api/users', 'admin'],
  ['POST', '/api/users', 'admin', {}],
  ['PATCH', '/api/users/vera', 'admin', {}],
  ['DELETE', '/api/users/nobody', 'admin'],
]

describe('role boundaries over the HTTP API', () => {
  it.each(BOUNDARIES)(
    '%s %s needs %s: 403 naming the role below it, let through from it',
    async (method, path, needs, body) => {
      for (const role of ROLES) {
        const answer = await call(tokens[role], method, path, body)
        if (ROLES.indexOf(role) < ROLES.indexOf(needs)) {
          expect(answer.status, role).toBe(403)
          expect(answer.body.error).toMatchObject({
            code: 'forbidden',
            message: `This needs the ${needs} role; ${NAMES[role]} is a ${role}.`,
          })
        } else {
          expect(answer.status, role).not.toBe(403)
          expect(answer.status, role).not.toBe(401)
        }
      }
    },
  )

  it('lets a viewer read every list and refuses it every route that changes something', async () => {
    const routes = listRoutes(createSidecarApp(sidecar.context, { roles: new Set(['api']) }) as never).filter(
      (route) => route.path.startsWith('/api/'),
    )
    const wrong: string[] = []
    for (const route of routes) {
      const path = samplePath(route.path)
      const answer = await call(tokens.viewer, route.method, path, route.method === 'GET' ? undefined : {})
      const expected = route.method === 'GET' ? route.path !== '/api/users' : false
      if (expected && (answer.status === 401 || answer.status === 403))
        wrong.push(`${route.method} ${path}: ${answer.status}`)
      if (!expected && answer.status !== 403) wrong.push(`${route.method} ${path}: ${answer.status}, not 403`)
    }
    expect(wrong).toEqual([])
  })
})

describe('who did what', () => {
  it('records the clerk on the allocation their match made and in the audit log', async () => {
    const { db } = sidecar.context.store
    await upsertTransactions(db, [
      mirrorRow(1, {
        amount: '250.00',
        currency: 'USD',
        payment_reference: null,
        description: 'no reference',
      }),
    ])
    const invoice = { number: 'INV-77', amount: '250.00', currency: 'USD', customerName: 'Acme' }
    expect((await call(API_TOKEN, 'PUT', '/api/invoices/inv-77', invoice)).status).toBe(201)
    const made = await call(tokens.clerk, 'POST', '/api/allocations', {
      transactionId: txId(1),
      invoiceId: 'inv-77',
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ invoiceId: 'inv-77', amount: '250', madeBy: 'person', actor: 'carl' })
    const listed = await call(tokens.viewer, 'GET', `/api/allocations?transactionId=${txId(1)}`)
    expect(listed.body.data).toMatchObject([{ actor: 'carl' }])

    const entries = await db
      .selectFrom('audit_log')
      .select(['actor', 'actor_role', 'action'])
      .where('action', 'in', ['manual_match.created', 'allocation.created'])
      .orderBy('seq')
      .execute()
    expect(entries).toEqual([
      { actor: 'carl', actor_role: 'clerk', action: 'manual_match.created' },
      { actor: 'carl', actor_role: 'clerk', action: 'allocation.created' },
    ])
    const unmatched = await call(tokens.approver, 'DELETE', `/api/allocations/${made.body.id}`)
    expect(unmatched.status).toBe(200)
    const removal = await db
      .selectFrom('audit_log')
      .select(['actor', 'actor_role'])
      .where('action', '=', 'manual_match.removed')
      .executeTakeFirstOrThrow()
    expect(removal).toEqual({ actor: 'april', actor_role: 'approver' })
    expect(await verifyAuditChain(db)).toMatchObject({ ok: true })
  })

  it('lists who did what at GET /api/audit, newest first, by actor, paged, for any role', async () => {
    const carl = await call(tokens.viewer, 'GET', '/api/audit?actor=carl')
    expect(carl.status).toBe(200)
    expect(carl.body.data.map((entry: any) => [entry.actor, entry.actorRole, entry.action])).toEqual([
      ['carl', 'clerk', 'allocation.created'],
      ['carl', 'clerk', 'manual_match.created'],
    ])
    const users = await call(tokens.viewer, 'GET', '/api/audit?entity=user&limit=3')
    expect(users.body.data.map((entry: any) => [entry.actor, entry.action, entry.entityId])).toEqual([
      ['admin', 'user.added', 'adam'],
      ['admin', 'user.added', 'april'],
      ['admin', 'user.added', 'carl'],
    ])
    const next = await call(
      tokens.viewer,
      'GET',
      `/api/audit?entity=user&limit=3&cursor=${users.body.pagination.nextCursor}`,
    )
    expect(next.body.data.map((entry: any) => entry.entityId)).toEqual(['vera'])
    expect(next.body.pagination).toEqual({ hasMore: false, nextCursor: null })
    const mixed = await call(
      tokens.viewer,
      'GET',
      `/api/audit?entity=invoice&cursor=${users.body.pagination.nextCursor}`,
    )
    expect(mixed.status).toBe(400)
    expect(mixed.body.error.code).toBe('invalid_cursor')
  })

  it('applies a new role at the next request and revokes a removed user’s token at once', async () => {
    expect((await call(API_TOKEN, 'PATCH', '/api/users/carl', { role: 'viewer' })).body).toMatchObject({
      name: 'carl',
      role: 'viewer',
    })
    expect((await call(tokens.clerk, 'POST', '/api/allocations', {})).status).toBe(403)
    const removed = await call(tokens.admin, 'DELETE', '/api/users/carl')
    expect(removed.body).toMatchObject({ name: 'carl', removedBy: 'adam' })
    const after = await call(tokens.clerk, 'GET', '/api/me')
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('unauthorized')
    expect((await call(API_TOKEN, 'GET', '/api/users?includeRemoved=true')).body.data).toContainEqual(
      expect.objectContaining({ name: 'carl', removedBy: 'adam' }),
    )
  })
})
