import { z } from 'zod'
import type { FieldProblem } from '../csv-rows/index.js'
import { compactReference, isValidRf, tokenKey } from '../matcher/index.js'

/** An invoice as the caller writes it (API body, library call, CSV row), validated. Amounts are decimal strings. */
export type InvoiceInput = {
  id: string
  number: string
  amount: string
  currency: string
  customerName: string | null
  customerAliases: string[]
  issueDate: string | null
  dueDate: string | null
  entityId: string | null
  accountId: string | null
  metadata: Record<string, unknown> | null
  customerId: string | null
  paymentReference: string | null
  /** Early-payment discount terms: `percent` (decimal string, 0–100 exclusive) off when paid by `until`. */
  earlyPaymentDiscount: EarlyPaymentDiscount | null
}

export type EarlyPaymentDiscount = { percent: string; until: string }

/** A field that failed validation and why, in words a person can act on. */
export type InvoiceFieldProblem = FieldProblem

export type InvoiceValidation =
  { ok: true; invoice: InvoiceInput } | { ok: false; problems: InvoiceFieldProblem[] }

/** The caller's id: URL-safe, so `PUT /api/invoices/{id}` needs no escaping. */
export const INVOICE_ID_PATTERN = /^[A-Za-z0-9][\w.:~-]{0,254}$/
export const CURRENCY_PATTERN = /^[A-Z0-9]{3,12}$/
/** The matcher keeps 18 decimal places exactly and refuses more, so more are refused here already. */
const AMOUNT_PATTERN = /^\d{1,30}(\.\d{1,18})?$/
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const MAX_NAME = 200
const MAX_ALIASES = 20
const MAX_NUMBER = 140
const MAX_REF = 255
const MAX_PAYMENT_REFERENCE = 140
const MAX_METADATA_CHARS = 16_384

/** Fields bankrec derives: an invoice round-tripped from GET may carry them; they are refused by name. */
export const READ_ONLY_FIELDS: ReadonlySet<string> = new Set([
  'status',
  'amountPaid',
  'amountPending',
  'amountOpen',
  'amountOverpaid',
  'amountWrittenOff',
  'amountCredited',
  'version',
  'voidedAt',
  'createdAt',
  'updatedAt',
])

function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value)
  if (!match) return false
  const [, year, month, day] = match.map(Number) as [number, number, number, number]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** Missing and mistyped are different mistakes: say which. */
function required(typeMessage: string) {
  return { error: (issue: { input?: unknown }) => (issue.input == null ? 'is required' : typeMessage) }
}

const amount = z
  .string(required('must be a decimal string such as "120.50" (a JSON number would lose precision)'))
  .trim()
  .min(1, { message: 'is required', abort: true })
  .regex(AMOUNT_PATTERN, {
    message:
      'must be a plain decimal such as 120.50: digits, an optional point and up to 18 decimals; no sign, ' +
      'spaces, currency symbols or thousands separators',
    abort: true,
  })
  .refine((value) => /[1-9]/.test(value), 'must be greater than 0')

const optionalText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((value) => (value ? value : null))

const optionalDate = z
  .string({ error: 'must be an ISO date string YYYY-MM-DD' })
  .trim()
  .nullish()
  .transform((value) => (value ? value : null))
  .refine((value) => value === null || isCalendarDate(value), 'must be a calendar date YYYY-MM-DD')

export const InvoiceInputSchema = z.object({
  id: z
    .string(required('must be a string'))
    .trim()
    .min(1, { message: 'is required', abort: true })
    .regex(
      INVOICE_ID_PATTERN,
      'must be 1 to 255 letters, digits, or . _ : ~ - (starting with a letter or digit)',
    ),
  number: z
    .string(required('must be a string'))
    .trim()
    .min(1, { message: 'is required', abort: true })
    .max(MAX_NUMBER, `must be at most ${MAX_NUMBER} characters`)
    // Numbers are matched by their letters and digits; one without any could never be found in a payment.
    .refine((value) => tokenKey(value).length > 0, 'must contain a letter or a digit'),
  amount,
  currency: z
    .string(required('must be a string'))
    .trim()
    .min(1, { message: 'is required', abort: true })
    .regex(CURRENCY_PATTERN, 'must be 3 to 12 upper-case letters or digits, such as EUR or USDC'),
  customerName: optionalText(MAX_NAME),
  customerAliases: z
    .array(
      z.string({ error: 'must be a string' }).trim().max(MAX_NAME, `must be at most ${MAX_NAME} characters`),
      { error: 'must be an array of names' },
    )
    .max(MAX_ALIASES, `must hold at most ${MAX_ALIASES} names`)
    .nullish()
    .transform((aliases) => (aliases ?? []).filter((alias) => alias.length > 0)),
  issueDate: optionalDate,
  dueDate: optionalDate,
  entityId: optionalText(MAX_REF),
  accountId: optionalText(MAX_REF),
  customerId: optionalText(MAX_REF).refine(
    (value) => value === null || INVOICE_ID_PATTERN.test(value),
    'must be a customer id: 1 to 255 letters, digits, or . _ : ~ - (starting with a letter or digit)',
  ),
  paymentReference: optionalText(MAX_PAYMENT_REFERENCE)
    .refine(
      (value) => value === null || /^[0-9A-Za-z +*/.-]+$/.test(value),
      'may hold only letters, digits, spaces and + * / . -',
    )
    .refine(
      (value) => value === null || compactReference(value).length > 0,
      'must contain a letter or a digit',
    )
    // An RF reference printed with wrong check digits would never be paid as printed: refuse it here.
    .refine(
      (value) =>
        value === null || !/^RF\d\d/i.test(compactReference(value)) || isValidRf(compactReference(value)),
      'is not a valid RF creditor reference (ISO 11649): its check digits do not add up',
    ),
  earlyPaymentDiscount: z
    .strictObject(
      {
        percent: z
          .string(required('must be a decimal string such as "2" or "2.5"'))
          .trim()
          .regex(/^\d{1,2}(\.\d{1,6})?$/, 'must be a plain decimal such as 2 or 2.5 (percent, below 100)')
          .refine((value) => /[1-9]/.test(value), 'must be greater than 0'),
        until: z
          .string(required('must be an ISO date string YYYY-MM-DD'))
          .trim()
          .refine(isCalendarDate, 'must be a calendar date YYYY-MM-DD'),
      },
      { error: 'must be an object such as {"percent": "2", "until": "2026-03-10"}' },
    )
    .nullish()
    .transform((value) => value ?? null),
  metadata: z
    .record(z.string(), z.unknown(), { error: 'must be a JSON object, such as {"po":"4711"}' })
    .nullish()
    .transform((value) => value ?? null)
    .refine(
      (value) => value === null || JSON.stringify(value).length <= MAX_METADATA_CHARS,
      `must be at most ${MAX_METADATA_CHARS} characters as JSON`,
    ),
})

const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(InvoiceInputSchema.shape))

/** Checked apart from the schema, so it is reported together with problems of other fields. */
function dueDateProblems(value: Record<string, unknown>): InvoiceFieldProblem[] {
  const issue = typeof value.issueDate === 'string' ? value.issueDate.trim() : ''
  const due = typeof value.dueDate === 'string' ? value.dueDate.trim() : ''
  if (!isCalendarDate(issue) || !isCalendarDate(due) || due >= issue) return []
  return [{ field: 'dueDate', message: 'must not be before issueDate' }]
}

function unknownFieldProblems(value: Record<string, unknown>): InvoiceFieldProblem[] {
  return Object.keys(value)
    .filter((key) => !KNOWN_FIELDS.has(key))
    .map((key) => ({
      field: key,
      message: READ_ONLY_FIELDS.has(key)
        ? 'is derived by bankrec and cannot be written'
        : 'is not an invoice field',
    }))
}

/**
 * Validates one invoice. Every problem is reported, each naming its field; unknown fields are refused so a
 * misspelt field is never silently dropped.
 */
export function validateInvoice(value: unknown): InvoiceValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: [{ field: '', message: 'must be a JSON object' }] }
  }
  const fields = value as Record<string, unknown>
  const result = InvoiceInputSchema.safeParse(fields)
  const problems = [
    ...(result.success
      ? []
      : result.error.issues.map((issue) => ({
          field: issue.path.map(String).join('.'),
          message: issue.message,
        }))),
    ...dueDateProblems(fields),
    ...unknownFieldProblems(fields),
  ]
  if (result.success && problems.length === 0) return { ok: true, invoice: result.data }
  return { ok: false, problems }
}
