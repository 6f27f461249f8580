import { DomainError } from '../errors/index.js'
import type { Actor } from './actor.js'
import { roleAllows, type Role } from './roles.js'

/** An approval refused: the approver made the thing (`same_person`) or lacks the role (`role_required`). */
export class MakerCheckerError extends DomainError {
  declare readonly code: 'same_person' | 'role_required'

  constructor(code: 'same_person' | 'role_required', message: string) {
    super('forbidden', code, message)
  }
}

/**
 * Maker-checker: what one person made (a write-off above a threshold, …) is approved by another person who holds
 * `needs` (approver by default). Names compare as stored (lower-case), so one person is one name; the built-in
 * admin is one name however many people hold KIT_API_TOKEN.
 */
export function assertSecondPerson(maker: string, approver: Actor, needs: Role = 'approver'): void {
  if (!roleAllows(approver.role, needs)) {
    throw new MakerCheckerError(
      'role_required',
      `Approving needs the ${needs} role; ${approver.name} is a ${approver.role}.`,
    )
  }
  if (approver.name === maker) {
    throw new MakerCheckerError(
      'same_person',
      `${approver.name} made this and cannot also approve it: another person with the ${needs} role must.`,
    )
  }
}
