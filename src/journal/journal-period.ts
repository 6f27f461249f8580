import { z } from 'zod'
import { JOURNAL_FORMATS } from './journal-formats.js'

const Day = z.iso.date({ message: 'must be a date YYYY-MM-DD' })

/** A journal request: the days `from` to `to` (both included, UTC) and the format. */
export const JournalRequest = z
  .object({
    from: Day,
    to: Day,
    format: z.enum(JOURNAL_FORMATS).default('json'),
  })
  .refine((request) => request.from <= request.to, { path: ['to'], message: 'must not be before from' })
  .transform((request) => ({
    format: request.format,
    from: new Date(`${request.from}T00:00:00.000Z`),
    // The day after `to`: the period is [from, to + 1 day).
    to: new Date(Date.parse(`${request.to}T00:00:00.000Z`) + 86_400_000),
  }))
