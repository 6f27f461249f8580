import { Decimal } from 'decimal.js'
import { z } from 'zod'
import { CURRENCY_PATTERN, INVOICE_ID_PATTERN } from '../invoices/index.js'

const id = (what: string) =>
  z
    .string({ error: (issue) => (issue.input == null ? 'is required' : 'must be a string') })
    .trim()
    .min(1, { message: 'is required', abort: true })
    .regex(
      INVOICE_ID_PATTERN,
      `must be ${what}: 1 to 255 letters, digits, or . _ : ~ - (starting with a letter or digit)`,
    )

export const CreditNoteSchema = z.strictObject({
  id: id('an id'),
  number: z
    .string({ error: (issue) => (issue.input == null ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'is required')
    .max(140, 'must be at most 140 characters'),
  amount: z
    .string({ error: 'must be a decimal string such as "120.50" (a JSON number would lose precision)' })
    .trim()
    .regex(
      /^\d{1,30}(\.\d{1,18})?$/,
      'must be a plain decimal such as 120.50, not negative, up to 18 decimals',
    )
    .refine((value) => /[1-9]/.test(value), 'must be greater than 0'),
  currency: z
    .string({ error: (issue) => (issue.input == null ? 'is required' : 'must be a string') })
    .trim()
    .regex(CURRENCY_PATTERN, 'must be 3 to 12 upper-case letters or digits, such as EUR or USDC'),
  customerId: id('a customer id')
    .nullish()
    .transform((value) => value ?? null),
  invoiceId: id('an invoice id'),
  /** The chart's credit-note account (LEDGER_ACCOUNTS); default its first. */
  account: z.string().trim().min(1).max(64).optional(),
})

/** A credit note as the caller writes it, validated; the amount a decimal string. */
export type CreditNoteInput = z.infer<typeof CreditNoteSchema>

/** The invoice fields a credit note is checked against. */
export type CreditedInvoice = {
  amount: string
  currency: string
  customerId: string | null
  void: boolean
}

/**
 * Why a credit note cannot be netted against its invoice: none, another currency, another customer's (or one naming
 * a customer on an invoice of none), void, or more than `invoice.amount` less `othersTotal` (the API passes the
 * invoice's open amount, the corpus its amount and the other notes). One rule for the API and the corpus.
 */
export function creditNoteProblems(
  note: Pick<CreditNoteInput, 'amount' | 'currency' | 'customerId' | 'invoiceId'>,
  invoice: CreditedInvoice | undefined,
  othersTotal = '0',
): Array<{ path: string; message: string }> {
  if (!invoice) return [{ path: 'invoiceId', message: `names no invoice ("${note.invoiceId}")` }]
  const problems: Array<{ path: string; message: string }> = []
  if (invoice.void) problems.push({ path: 'invoiceId', message: 'names a void invoice' })
  if (note.currency !== invoice.currency) {
    problems.push({ path: 'currency', message: `must be the invoice's currency, ${invoice.currency}` })
  }
  if (note.customerId !== null && note.customerId !== invoice.customerId) {
    problems.push({
      path: 'customerId',
      message: `must be the invoice's customer (${invoice.customerId ?? 'none'}): a credit note nets only against its own customer's invoice`,
    })
  }
  const room = new Decimal(invoice.amount).minus(othersTotal)
  if (new Decimal(note.amount).greaterThan(room)) {
    problems.push({
      path: 'amount',
      message: `must not be more than the invoice has open (${room.toFixed()})`,
    })
  }
  return problems
}
