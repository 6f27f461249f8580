import { z } from 'zod'

/** Names the audit log already uses for what is not a person, and the built-in admin's default. */
export const RESERVED_NAMES = ['engine', 'person', 'system', 'admin'] as const

/** What a name may be once trimmed and lower-cased (the built-in admin's name too). */
export const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9._@+-]{0,63}$/

export const USER_NAME_RULE =
  'must be 1–64 lower-case letters, digits or . _ @ + - (starting with a letter or digit)'

/**
 * A user's name as the audit log records it: lower-case letters, digits and `. _ @ + -` (an email address
 * fits), 1–64 characters, trimmed and lower-cased so `Alice` and `alice` are one person.
 */
export const UserName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(USER_NAME_PATTERN, USER_NAME_RULE)
  .refine((name) => !(RESERVED_NAMES as readonly string[]).includes(name), {
    message: `must not be one of ${RESERVED_NAMES.join(', ')} (reserved)`,
  })
