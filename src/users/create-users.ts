import type { Kysely } from 'kysely'
import type { z } from 'zod'
import type { Clock } from '../clock/index.js'
import {
  appendAudit,
  findActiveUser,
  insertUser,
  listUsers,
  revokeUser,
  setUserRole,
  type Database,
  type UserRow,
} from '../store/index.js'
import { auditActor, type Actor } from './actor.js'
import { RoleSchema, type Role } from './roles.js'
import { UserError } from './user-error.js'
import { UserName } from './user-name.js'
import { newUserToken, userTokenHash } from './user-token.js'

/** What the users library needs; a `SidecarContext` gives it. */
export type UsersDeps = {
  db: Kysely<Database>
  clock: Clock
  /** The built-in admin's name (KIT_API_TOKEN_NAME): no user may take it. */
  builtinName: string
}

/** A user as the CLI and the API show it: never the token, nor its hash. */
export type User = {
  id: string
  name: string
  role: Role
  createdAt: string
  createdBy: string
  removedAt: string | null
  removedBy: string | null
}

export type Users = {
  /** Creates a user; the token is returned here once and kept only as its SHA-256. */
  add(input: { name: string; role: string }, by: Actor): Promise<{ user: User; token: string }>
  list(options?: { includeRemoved?: boolean }): Promise<User[]>
  /** Revokes the user's token at once (API and dashboard sessions); the record stays. */
  remove(name: string, by: Actor): Promise<User>
  setRole(name: string, role: string, by: Actor): Promise<User>
}

export function userView(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    createdBy: row.created_by,
    removedAt: row.revoked_at?.toISOString() ?? null,
    removedBy: row.revoked_by,
  }
}

export function userActor(row: Pick<UserRow, 'name' | 'role'>): Actor {
  return { name: row.name, role: row.role, kind: 'user' }
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new UserError('invalid', 'validation_error', `${what} ${parsed.error.issues[0]!.message}`)
}

/** Named users with roles; every change is audited in the transaction that makes it. */
export function createUsers(deps: UsersDeps): Users {
  const { db, clock } = deps
  const nameOf = (value: string) => {
    const name = parse(UserName, value, 'name')
    if (name === deps.builtinName) {
      throw new UserError(
        'invalid',
        'validation_error',
        `name ${name} is the built-in admin's (KIT_API_TOKEN_NAME); pick another`,
      )
    }
    return name
  }
  const activeUser = async (trx: Kysely<Database>, name: string) => {
    const row = await findActiveUser(trx, { name: nameOf(name) })
    if (!row) throw new UserError('not_found', 'not_found', `No user ${name}.`)
    return row
  }
  return {
    async add(input, by) {
      const name = nameOf(input.name)
      const role = parse(RoleSchema, input.role, 'role')
      const token = newUserToken()
      const now = clock.now()
      const row = await db.transaction().execute(async (trx) => {
        const inserted = await insertUser(
          trx,
          { name, role, tokenHash: userTokenHash(token), createdBy: by.name },
          now,
        )
        if (!inserted) {
          throw new UserError(
            'conflict',
            'name_taken',
            `A user named ${name} exists; remove it first to issue a new token.`,
          )
        }
        await appendAudit(trx, now, [
          { ...auditActor(by), action: 'user.added', entity: 'user', entityId: name, payload: { role } },
        ])
        return inserted
      })
      return { user: userView(row), token }
    },
    async list(options = {}) {
      return (await listUsers(db, options)).map(userView)
    },
    async remove(name, by) {
      const now = clock.now()
      const row = await db.transaction().execute(async (trx) => {
        const user = await activeUser(trx, name)
        const removed = (await revokeUser(trx, user.id, by.name, now))!
        await appendAudit(trx, now, [
          {
            ...auditActor(by),
            action: 'user.removed',
            entity: 'user',
            entityId: user.name,
            payload: { role: user.role },
          },
        ])
        return removed
      })
      return userView(row)
    },
    async setRole(name, value, by) {
      const role = parse(RoleSchema, value, 'role')
      const now = clock.now()
      const row = await db.transaction().execute(async (trx) => {
        const user = await activeUser(trx, name)
        if (user.role === role) return user
        const changed = (await setUserRole(trx, user.id, role))!
        await appendAudit(trx, now, [
          {
            ...auditActor(by),
            action: 'user.role_changed',
            entity: 'user',
            entityId: user.name,
            payload: { from: user.role, to: role },
          },
        ])
        return changed
      })
      return userView(row)
    },
  }
}
