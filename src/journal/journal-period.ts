import { z } from 'zod'
import { JOURNAL_FORMATS } from './journal-formats.js'

const Day = z.iso.date({ message: 'must be a date YYYY-MM-DD' })
const Digits = (what: string, min: number, max: number) =>
  z.coerce
    .number<number | string>({ error: `must be ${what}` })
    .int(`must be ${what}`)
    .min(min, `must be ${what}`)
    .max(max, `must be ${what}`)

/** `NAME=NUMBER`: which DATEV account number a ledger account name books to (repeatable). */
const DatevAccount = z
  .string()
  .regex(/^.{1,100}=\d{1,9}$/, 'must be NAME=NUMBER, such as Bank=1200')
  .meta({ description: 'a ledger account name and the DATEV account number it books to, NAME=NUMBER' })

/**
 * A journal request: the days `from` to `to` (both included, UTC), the format, and what to keep: one bank
 * account's entries, one currency's. DATEV's batch also needs the consultant and client numbers, the fiscal
 * year's first day and an account number for each ledger account name (docs/closing.md#journal).
 */
export const JournalRequest = z
  .object({
    from: Day,
    to: Day,
    format: z.enum(JOURNAL_FORMATS).default('json'),
    account: z.uuid({ message: 'must be a bank account id (a UUID)' }).optional(),
    currency: z
      .string()
      .regex(/^[A-Z0-9]{3,12}$/, 'must be a currency code such as EUR or JPY')
      .optional(),
    depositAccount: z.string().trim().min(1).max(100).optional().meta({
      description: 'the deposit account named in payment records (qbo-payments, xero-payments); default Bank',
    }),
    datevConsultant: Digits('a DATEV consultant number from 1001 to 9999999', 1001, 9_999_999).optional(),
    datevClient: Digits('a DATEV client number from 1 to 99999', 1, 99_999).optional(),
    datevFiscalYearStart: Day.optional().meta({
      description: "the fiscal year's first day; default 1 January",
    }),
    datevAccount: z.union([DatevAccount, z.array(DatevAccount)]).optional(),
  })
  .refine((request) => request.from <= request.to, { path: ['to'], message: 'must not be before from' })
  .refine((request) => request.format !== 'datev' || request.datevConsultant !== undefined, {
    path: ['datevConsultant'],
    message: 'is required for the datev format (the Beraternummer)',
  })
  .refine((request) => request.format !== 'datev' || request.datevClient !== undefined, {
    path: ['datevClient'],
    message: 'is required for the datev format (the Mandantennummer)',
  })
  .transform((request) => ({
    format: request.format,
    from: new Date(`${request.from}T00:00:00.000Z`),
    // The day after `to`: the period is [from, to + 1 day).
    to: new Date(Date.parse(`${request.to}T00:00:00.000Z`) + 86_400_000),
    account: request.account,
    currency: request.currency,
    depositAccount: request.depositAccount,
    datev:
      request.datevConsultant !== undefined && request.datevClient !== undefined
        ? {
            consultant: request.datevConsultant,
            client: request.datevClient,
            fiscalYearStart: request.datevFiscalYearStart ?? `${request.from.slice(0, 4)}-01-01`,
            accountNumbers: Object.fromEntries(
              [request.datevAccount ?? []].flat().map((pair) => {
                const at = pair.lastIndexOf('=')
                return [pair.slice(0, at), pair.slice(at + 1)]
              }),
            ),
          }
        : undefined,
  }))

export type JournalRequest = z.output<typeof JournalRequest>
