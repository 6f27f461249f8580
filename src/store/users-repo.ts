import type { Kysely, Selectable } from 'kysely'
import type { Database, UsersTable } from './database.js'

export type UserRow = Selectable<UsersTable>

export type NewUser = {
  name: string
  role: UsersTable['role']
  tokenHash: string
  createdBy: string
}

/** Inserts a user; undefined when an active user already has the name. */
export async function insertUser(
  db: Kysely<Database>,
  user: NewUser,
  at: Date,
): Promise<UserRow | undefined> {
  return db
    .insertInto('users')
    .values({
      name: user.name,
      role: user.role,
      token_hash: user.tokenHash,
      created_at: at,
      created_by: user.createdBy,
    })
    .onConflict((oc) => oc.column('name').where('revoked_at', 'is', null).doNothing())
    .returningAll()
    .executeTakeFirst()
}

/** The active user with this id, name, or token SHA-256, if any. */
export async function findActiveUser(
  db: Kysely<Database>,
  by: { id: string } | { name: string } | { tokenHash: string },
): Promise<UserRow | undefined> {
  if ('id' in by && !/^\d{1,18}$/.test(by.id)) return undefined
  const [column, value] =
    'id' in by
      ? (['id', by.id] as const)
      : 'name' in by
        ? (['name', by.name] as const)
        : (['token_hash', by.tokenHash] as const)
  return db
    .selectFrom('users')
    .selectAll()
    .where(column, '=', value)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

/** Users by name, then newest first; removed ones only when asked. */
export async function listUsers(
  db: Kysely<Database>,
  options: { includeRemoved?: boolean } = {},
): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll()
  if (!options.includeRemoved) query = query.where('revoked_at', 'is', null)
  return query.orderBy('name').orderBy('id', 'desc').execute()
}

export async function setUserRole(
  db: Kysely<Database>,
  id: string,
  role: UsersTable['role'],
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ role })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}

/** Revokes the user's token; the row stays for the record. */
export async function revokeUser(
  db: Kysely<Database>,
  id: string,
  by: string,
  at: Date,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ revoked_at: at, revoked_by: by })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst()
}
