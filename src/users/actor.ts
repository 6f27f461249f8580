import type { Role } from './roles.js'

/** Who does something: a named user with a role, or the built-in admin of KIT_API_TOKEN. */
export type Actor = {
  name: string
  role: Role
  /** `token`: KIT_API_TOKEN (the built-in admin); `user`: a token `bankrec users add` issued. */
  kind: 'token' | 'user'
}

/** The actor of KIT_API_TOKEN (and of the CLI without BANKREC_USER_TOKEN). */
export function builtinAdmin(name: string): Actor {
  return { name, role: 'admin', kind: 'token' }
}

/** The audit log's columns for an actor. */
export function auditActor(actor: Actor): { actor: string; actorRole: Role } {
  return { actor: actor.name, actorRole: actor.role }
}
