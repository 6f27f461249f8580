import { z } from 'zod'

/**
 * The roles, each allowed everything the ones before it are: `viewer` reads, `clerk` matches and resolves
 * ordinary exceptions, `approver` also approves what needs a second person, `admin` does everything (users,
 * queue board writes, configuration, invoices, transfers, connections).
 */
export const ROLES = ['viewer', 'clerk', 'approver', 'admin'] as const

export type Role = (typeof ROLES)[number]

export const RoleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` })

/** Whether a holder of `has` may do what needs `needs`. */
export function roleAllows(has: Role, needs: Role): boolean {
  return ROLES.indexOf(has) >= ROLES.indexOf(needs)
}
