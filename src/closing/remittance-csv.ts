import { Decimal } from 'decimal.js'
import { z } from 'zod'
import { DecimalString } from '../api-client/index.js'
import { parseCsvRows, type CsvInput, type CsvRowsRefusal, type CsvSchema } from '../csv-rows/index.js'
import type { RemittanceAdvice } from './remittance.js'

/** The sign of a decimal string; NaN when it is none (zod runs refinements after a failed pattern too: the
 * pattern's message is the one to show then). */
function signOf(value: string): number {
  try {
    return new Decimal(value).comparedTo(0)
  } catch {
    return Number.NaN
  }
}

export const RemittanceAmount = DecimalString.refine((value) => !(signOf(value) <= 0), 'must be more than 0')
export const RemittanceFee = DecimalString.refine((value) => !(signOf(value) < 0), 'must be 0 or more')
export const RemittanceFeeReason = z.enum(['bank_fee', 'psp_fee'])
/** Lines of one advice, JSON or CSV. */
export const MAX_ADVICE_LINES = 10_000
export const RemittanceLine = z.strictObject({
  invoiceNumber: z.string().trim().min(1).max(255),
  amount: RemittanceAmount,
})

type CsvLine = { invoiceNumber: string; amount: string; fee?: string | undefined }

const CsvLineSchema = z.object({
  invoiceNumber: RemittanceLine.shape.invoiceNumber,
  amount: RemittanceAmount,
  fee: RemittanceFee.optional(),
})

/** A remittance advice or payout report: a line per invoice, and its fee when the report states one per line. */
const ADVICE_CSV_SCHEMA: CsvSchema<'invoiceNumber' | 'amount' | 'fee', CsvLine> = {
  noun: 'a remittance line',
  columns: ['invoiceNumber', 'amount', 'fee'],
  required: ['invoiceNumber', 'amount'],
  validate(fields) {
    const parsed = CsvLineSchema.safeParse({ ...fields, fee: fields.fee || undefined })
    if (parsed.success) return { ok: true, value: parsed.data }
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => ({
        field: String(issue.path[0] ?? ''),
        message: issue.message,
      })),
    }
  },
}

/**
 * A remittance advice from CSV `invoiceNumber,amount[,fee]`: the advice's fee is the fee column's sum (a payout
 * report states one per line). Refused like any CSV import: the first bad rows with their reasons; past
 * `MAX_ADVICE_LINES` rows, as a JSON advice is, reading stops there.
 */
export async function parseRemittanceCsv(
  input: CsvInput,
  feeReason?: 'bank_fee' | 'psp_fee',
): Promise<{ ok: true; advice: RemittanceAdvice } | CsvRowsRefusal> {
  const parsed = await parseCsvRows(input, ADVICE_CSV_SCHEMA, { maxRows: MAX_ADVICE_LINES })
  if (!parsed.ok) return parsed
  const fee = parsed.rows.reduce((sum, row) => sum.plus(row.fee ?? 0), new Decimal(0))
  return {
    ok: true,
    advice: {
      lines: parsed.rows.map(({ invoiceNumber, amount }) => ({ invoiceNumber, amount })),
      fee: fee.toFixed(),
      ...(feeReason ? { feeReason } : {}),
    },
  }
}
