import { electronicFormatIBAN, isValidIBAN } from 'ibantools'
import { z } from 'zod'
import type { FieldProblem } from '../csv-rows/index.js'
import { INVOICE_ID_PATTERN } from '../invoices/index.js'

/** A customer as the caller writes it (API body, library call, CSV row), validated. */
export type CustomerInput = { id: string; name: string; aliases: string[]; bankAccounts: string[] }

export type CustomerValidation =
  { ok: true; customer: CustomerInput } | { ok: false; problems: FieldProblem[] }

const MAX_NAME = 200
const MAX_ITEMS = 20

/** An IBAN when it starts with a country code and check digits; else an account number of 4–34 letters and digits. */
function accountProblem(account: string): string | null {
  const compact = account.replace(/[\s-]/g, '').toUpperCase()
  if (/^[A-Z]{2}\d{2}/.test(compact)) {
    return isValidIBAN(electronicFormatIBAN(compact) ?? compact)
      ? null
      : 'is not a valid IBAN (its length or check digits are wrong)'
  }
  return /^[0-9A-Z]{4,34}$/.test(compact)
    ? null
    : 'must be an IBAN or an account number of 4 to 34 letters and digits'
}

const name = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, 'is required')
    .max(MAX_NAME, `must be at most ${MAX_NAME} characters`)

export const CustomerInputSchema = z.strictObject(
  {
    id: z
      .string({ error: 'is required' })
      .trim()
      .regex(
        INVOICE_ID_PATTERN,
        'must be 1 to 255 letters, digits, or . _ : ~ - (starting with a letter or digit)',
      ),
    name: name('name'),
    aliases: z
      .array(name('an alias'), { error: 'must be an array of names' })
      .max(MAX_ITEMS, `must hold at most ${MAX_ITEMS} names`)
      .default([]),
    bankAccounts: z
      .array(
        z
          .string({ error: 'must be a string' })
          .trim()
          .superRefine((value, ctx) => {
            const problem = accountProblem(value)
            if (problem) ctx.addIssue({ code: 'custom', message: problem })
          }),
        { error: 'must be an array of IBANs or account numbers' },
      )
      .max(MAX_ITEMS, `must hold at most ${MAX_ITEMS} accounts`)
      .default([]),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? 'is not a customer field' : undefined) },
)

/** Validates one customer; every problem is reported, each naming its field (`bankAccounts.1`). */
export function validateCustomer(value: unknown): CustomerValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [{ field: '', message: 'must be a JSON object' }] }
  }
  const result = CustomerInputSchema.safeParse(value)
  if (result.success) return { ok: true, customer: result.data }
  return {
    ok: false,
    problems: result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: key, message: 'is not a customer field' }))
        : [{ field: issue.path.map(String).join('.'), message: issue.message }],
    ),
  }
}
